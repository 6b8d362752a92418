//! Shadow memory: per 4-byte word (per byte, for words that sub-word accesses touch),
//! the last plain write and the last two reads (or atomics) by different waves, for
//! races (36 bytes per word, in pages of 1 KiB of memory; a block of 32 words that only
//! whole waves have accessed, lane `k` on word `k`, by one record per field instead); a
//! bit per byte for "written in this launch" (pages of 4 KiB). Both are
//! sparse, so their size follows what the kernel touches, not the buffers' sizes, and
//! pages are shared between clones (time-travel snapshots) until written.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use super::held::{Held, Owner};
use super::{MemAccess, Site};
use crate::exec::simd::simd_fn;
use crate::trace::{MemTrace, TraceEntry, TraceRun};
use crate::wave::{Lanes, LANES};

/// Bytes of memory per init-bits page.
const PAGE: u64 = 4096;
/// Bytes of memory per race page (smaller: a race cell is 9 times the word it shadows).
const RACE_PAGE: u64 = 1024;
/// 4-byte words (race cells) per race page: 256.
const WORDS: usize = (RACE_PAGE / 4) as usize;
/// Blocks of 32 words (one per lane of a wave) per race page: 8 ([`RacePage::blocks`]).
const BLOCKS: usize = WORDS / LANES;

/// The multiplier of the page hashes ([`PageHasher`], [`recent_set`]): 2^64 over the
/// golden ratio, which spreads small and evenly spaced keys over the high bits.
const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

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
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(GOLDEN);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0 ^ n).wrapping_mul(GOLDEN);
    }

    // The race pages' third reads and split words are keyed by `u32` and `u16`: hashed as
    // a `u64` in one step, not byte by byte through `write`.
    fn write_u32(&mut self, n: u32) {
        self.write_u64(n.into());
    }

    fn write_u16(&mut self, n: u16) {
        self.write_u64(n.into());
    }
}

type PageMap<P> = HashMap<u64, Arc<P>, BuildHasherDefault<PageHasher>>;

/// The workgroup of a wave, from its global id (waves per workgroup: a shift when a
/// power of two, as it usually is).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Groups {
    wpg: u32,
    shift: Option<u32>,
}

impl Groups {
    /// The mapping for `wpg` waves per workgroup (0 counts as 1).
    pub fn new(wpg: u32) -> Groups {
        let wpg = wpg.max(1);
        Groups {
            wpg,
            shift: wpg.is_power_of_two().then(|| wpg.trailing_zeros()),
        }
    }

    #[inline]
    pub fn of(self, wave: u32) -> u32 {
        match self.shift {
            Some(s) => wave >> s,
            None => wave / self.wpg,
        }
    }

    /// Waves per workgroup.
    pub fn per_group(self) -> u32 {
        self.wpg
    }

    /// The first wave of `wave`'s workgroup.
    #[inline]
    fn first(self, wave: u32) -> u32 {
        match self.shift {
            Some(s) => wave >> s << s,
            None => wave - wave % self.wpg,
        }
    }
}

/// One access as the race shadow keeps it, in 12 bytes. (A `u64` and a `u32`, packed to
/// 4-byte alignment: built and copied in the same two widths, a record just built is read
/// back without a store-forwarding stall, which three `u32` fields suffered when copied
/// as 8 + 4 bytes.)
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[repr(C, packed(4))]
pub(super) struct Ref {
    /// Global wave id + 1 (bits 0-31; 0: no access), its workgroup's barrier count (bits
    /// 32-47; compared modulo 2^16), the wave's release generation (48-58, modulo 2^11:
    /// `order.rs`) and the lane (59-63).
    id: u64,
    /// PC / 4 (bits 0-23: 64 MiB of code), bytes of the word touched (24-27), atomic (28),
    /// plain write (29).
    bits: u32,
}

pub(super) const EPOCH_MASK: u32 = (1 << 16) - 1;
const GEN_SHIFT: u32 = 16;
/// Bits of a release generation a record keeps (`order.rs` rebuilds the rest).
pub(super) const GEN_BITS: u32 = 11;
const LANE_SHIFT: u32 = 27;
const PC_MASK: u32 = (1 << 24) - 1;
const MASK_SHIFT: u32 = 24;
const ATOMIC: u32 = 1 << 28;
const WRITE: u32 = 1 << 29;

impl Ref {
    /// An access by wave `wave` after `epoch` barriers of its workgroup, at `pc`.
    pub fn new(wave: u32, epoch: u32, pc: u64, access: MemAccess) -> Ref {
        let kind = match access {
            MemAccess::Atomic => ATOMIC,
            MemAccess::Write => WRITE,
            MemAccess::Read => 0,
        };
        Ref {
            id: wave.wrapping_add(1) as u64 | ((epoch & EPOCH_MASK) as u64) << 32,
            bits: ((pc / 4).min(PC_MASK as u64) as u32) | kind,
        }
    }

    /// The same access in release generation `gen` of its wave (kept modulo 2^11).
    pub fn with_gen(self, gen: u32) -> Ref {
        let mask = ((1u64 << GEN_BITS) - 1) << (32 + GEN_SHIFT);
        Ref {
            id: self.id & !mask | ((gen as u64) << (32 + GEN_SHIFT)) & mask,
            bits: self.bits,
        }
    }

    /// The release generation, modulo 2^11.
    pub fn gen(self) -> u32 {
        self.epoch_lane() >> GEN_SHIFT & ((1 << GEN_BITS) - 1)
    }

    /// The global id of the wave (the record must be of an access).
    pub fn wave_id(self) -> u32 {
        self.wave().wrapping_sub(1)
    }

    /// How it touched memory.
    pub fn access(self) -> MemAccess {
        let bits = self.bits;
        if bits & ATOMIC != 0 {
            MemAccess::Atomic
        } else if self.is_write() {
            MemAccess::Write
        } else {
            MemAccess::Read
        }
    }

    /// The same access by lane `lane` (0-31, taken modulo 32) instead.
    pub fn with_lane(self, lane: u8) -> Ref {
        let lane_bits = 31u64 << (32 + LANE_SHIFT);
        Ref {
            id: self.id & !lane_bits | ((lane as u64 & 31) << (32 + LANE_SHIFT)),
            bits: self.bits,
        }
    }

    /// The same access by the lane `k` lanes above this one's (which must stay below 32):
    /// the record of word `k` of a run whose word 0 this one is.
    #[inline(always)]
    fn lanes_on(self, k: usize) -> Ref {
        Ref {
            id: self.id + ((k as u64) << (32 + LANE_SHIFT)),
            bits: self.bits,
        }
    }

    fn with_mask(self, mask: u8) -> Ref {
        let bits = self.bits;
        Ref {
            id: self.id,
            bits: bits & !(15 << MASK_SHIFT) | (mask as u32 & 15) << MASK_SHIFT,
        }
    }

    /// Global wave id + 1 (0: no access).
    #[inline]
    fn wave(self) -> u32 {
        self.id as u32
    }

    fn epoch_lane(self) -> u32 {
        (self.id >> 32) as u32
    }

    fn epoch(self) -> u32 {
        self.epoch_lane() & EPOCH_MASK
    }

    fn mask(self) -> u32 {
        let bits = self.bits;
        bits >> MASK_SHIFT & 15
    }

    fn is_write(self) -> bool {
        let bits = self.bits;
        bits & WRITE != 0
    }

    /// Whether `self` (earlier) and `b` (now) are accesses of different waves to common
    /// bytes that barriers leave unordered: waves of one workgroup are ordered by a barrier
    /// between them (their barrier counts differ), other workgroups never (atomics order
    /// them, which [`Ref::races`] asks `order.rs` about).
    #[inline]
    fn concurrent(&self, b: &Ref, g: Groups) -> bool {
        self.wave() != 0
            && self.wave() != b.wave()
            && self.mask() & b.mask() != 0
            && (self.epoch() == b.epoch() || g.of(self.wave() - 1) != g.of(b.wave() - 1))
    }

    /// Whether `self` (earlier) and `b` race: concurrent by barriers ([`Ref::concurrent`])
    /// and not ordered by `hb` (release/acquire through atomics, asked only then).
    #[inline]
    fn races(&self, b: &Ref, g: Groups, hb: &impl Fn(&Ref, &Ref) -> bool) -> bool {
        self.concurrent(b, g) && !hb(self, b)
    }

    /// Whether `other` is an access of the same wave at the same PC, the same way (in
    /// whatever barrier epoch, generation and lane).
    pub fn same_site(self, other: Ref) -> bool {
        let (a, b) = (self.bits, other.bits);
        self.wave() == other.wave() && a & !(15 << MASK_SHIFT) == b & !(15 << MASK_SHIFT)
    }

    /// The PC of the access (as kept: 64 MiB of code).
    pub fn pc(self) -> u64 {
        let bits = self.bits;
        (bits & PC_MASK) as u64 * 4
    }

    /// The access as a finding names it.
    pub fn site(&self, g: Groups) -> Site {
        let wave = self.wave().wrapping_sub(1);
        let bits = self.bits;
        Site {
            wave,
            workgroup: g.of(wave),
            lanes: 1u32 << (self.epoch_lane() >> LANE_SHIFT),
            pc: (bits & PC_MASK) as u64 * 4,
            access: Some(self.access()),
            epoch: Some(self.epoch()),
        }
    }
}

/// What the run loop ([`RacePage::words`]) compares each record with, taken apart once
/// per instruction: the accessing wave (id + 1), its barrier count, and the ids + 1 of
/// its workgroup's waves (`first..first + wpg`).
#[derive(Clone, Copy)]
struct Mine {
    wave: u32,
    epoch: u32,
    first: u32,
    wpg: u32,
    write: bool,
}

impl Mine {
    fn of(me: Ref, g: Groups) -> Mine {
        let id = me.wave().wrapping_sub(1);
        Mine {
            wave: me.wave(),
            epoch: me.epoch(),
            first: g.first(id).wrapping_add(1),
            wpg: g.wpg,
            write: me.is_write(),
        }
    }

    /// Whether the record of wave `w` (id + 1, not 0) is of a wave of this workgroup.
    #[inline(always)]
    fn in_group(self, w: u32) -> bool {
        w.wrapping_sub(self.first) < self.wpg
    }

    /// Whether record `r` cannot be concurrent with this access ([`Ref::concurrent`]
    /// false whatever the bytes): empty, of this wave, or of this workgroup at another
    /// barrier count.
    #[inline(always)]
    fn clear_of(self, r: Ref) -> bool {
        let w = r.wave();
        (w == 0) | (w == self.wave) | ((r.epoch() != self.epoch) & self.in_group(w))
    }

    /// Whether record `r` is empty, or of a wave of this workgroup.
    #[inline(always)]
    fn same_group(self, r: Ref) -> bool {
        let w = r.wave();
        (w == 0) | self.in_group(w)
    }

    /// Whether `cell` takes this access in place ([`Cells::take_in_place`]), the state
    /// [`Cell::access`] would leave, finding no race: none of its records may be
    /// concurrent with a write; for a read, its write may not be and its last read is of
    /// this workgroup. Without a branch per record (the `&` and `|` of booleans), so a
    /// run of cells vectorises ([`cells_in_place`]).
    #[inline(always)]
    fn in_place(self, cell: &Cell) -> bool {
        self.in_place_of(cell.write, cell.r1, cell.r2)
    }

    /// [`Mine::in_place`] of the cell with records `write`, `r1` and `r2` (`r2` is looked
    /// at only for a write).
    #[inline(always)]
    fn in_place_of(self, write: Ref, r1: Ref, r2: Ref) -> bool {
        let rest = if self.write {
            self.clear_of(r1) & self.clear_of(r2)
        } else {
            self.same_group(r1)
        };
        self.clear_of(write) & rest
    }
}

/// Which waves' records a page holds, coarsely: the one wave (id + 1), workgroup (its
/// first wave's id + 1) and barrier count they share, [`MANY`] where they differ, the
/// wave 0 while there are none. Only ever widened (a record overwritten stays counted),
/// so it is true of every record the page holds: enough to tell that none of them can
/// race with an access without looking at the cells ([`Holders::clear_of`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Holders {
    wave: u32,
    first: u32,
    epoch: u32,
}

/// [`Holders`]' "not one": above every wave id + 1 (waves are counted in `u32`s, far fewer
/// than 2^32 - 1) and every barrier count (kept modulo 2^16).
const MANY: u32 = u32::MAX;

impl Holders {
    /// Counts `mine`'s access in.
    #[inline(always)]
    fn add(&mut self, mine: Mine) {
        if self.wave == 0 {
            *self = Holders {
                wave: mine.wave,
                first: mine.first,
                epoch: mine.epoch,
            };
            return;
        }
        let widen = |x: &mut u32, y: u32| {
            if *x != y {
                *x = MANY;
            }
        };
        widen(&mut self.wave, mine.wave);
        widen(&mut self.first, mine.first);
        widen(&mut self.epoch, mine.epoch);
    }

    /// Whether every record counted is [`Mine::clear_of`] `mine`: none, or all of its wave,
    /// or all of its workgroup at one other barrier count.
    #[inline(always)]
    fn clear_of(self, mine: Mine) -> bool {
        self.wave == 0
            || self.wave == mine.wave
            || (self.first == mine.first && self.epoch != MANY && self.epoch != mine.epoch)
    }

    /// Whether every record counted is of wave `wave` (id + 1).
    #[inline(always)]
    fn only(self, wave: u32) -> bool {
        self.wave == 0 || self.wave == wave
    }

    /// Whether every record counted is of `mine`'s workgroup ([`Mine::same_group`]).
    #[inline(always)]
    fn same_group(self, mine: Mine) -> bool {
        self.wave == 0 || self.first == mine.first
    }
}

/// A page's [`Holders`]: of its plain writes, and of its reads and atomics.
#[derive(Debug, Clone, Copy, Default)]
struct PageHolders {
    writes: Holders,
    reads: Holders,
}

impl PageHolders {
    /// Counts `mine`'s access in.
    #[inline(always)]
    fn add(&mut self, mine: Mine) {
        if mine.write {
            self.writes.add(mine);
        } else {
            self.reads.add(mine);
        }
    }

    /// Whether every cell of the page takes `mine`'s access in place ([`Mine::in_place`]),
    /// as the holders alone tell: the per-cell test's conditions, for every record at once.
    #[inline(always)]
    fn in_place(self, mine: Mine) -> bool {
        let rest = if mine.write {
            self.reads.clear_of(mine)
        } else {
            self.reads.same_group(mine)
        };
        self.writes.clear_of(mine) && rest
    }
}

simd_fn! {
    /// Whether every one of the cells whose fields are `[write, r1, r2]` (as
    /// [`Cells::fields`] gives them) takes `mine`'s access in place ([`Mine::in_place`]):
    /// one pass without a branch per cell, over the fields the test reads.
    fn cells_in_place(fields: [&[Ref]; 3], mine: Mine) -> bool {
        let [write, r1, r2] = fields;
        let cells = write.iter().zip(r1);
        if mine.write {
            cells.zip(r2).fold(true, |ok, ((&w, &a), &b)| ok & mine.in_place_of(w, a, b))
        } else {
            // A read's test does not look at `r2`: its field is not loaded.
            cells.fold(true, |ok, (&w, &a)| ok & mine.in_place_of(w, a, Ref::default()))
        }
    }
}

/// An earlier access an access races with.
#[derive(Debug, Clone, Copy)]
pub(super) struct Conflict {
    /// The earlier access: another wave's, unordered with this one, to common bytes.
    pub prior: Ref,
}

/// One word's history (36 bytes).
#[derive(Debug, Clone, Copy, Default)]
struct Cell {
    /// The last plain write.
    write: Ref,
    /// The last read or atomic (`r1`) and the last one by a wave other than `r1`'s (`r2`).
    /// With the last one by a workgroup other than `r1`'s (`r3`, kept by the page), a
    /// later write by any wave races with one of them if it races with any earlier read
    /// (docs/sanitizer.md).
    r1: Ref,
    r2: Ref,
}

/// A page's word cells, field by field: every cell's write, then every cell's `r1`, then
/// every cell's `r2` ([`Cell`]'s fields). A run of reads by the wave that last read its
/// words stores only `r1`s, a run of writes only `write`s: a third of the memory a run of
/// whole cells would touch, which for a kernel streaming over more memory than the
/// cache holds is most of the shadow's cost.
#[derive(Debug, Clone)]
struct Cells(Box<[Ref]>);

impl Cells {
    /// The cells of a new page (their contents are whatever they hold: a page's `live`
    /// bits say which hold history).
    fn new() -> Cells {
        Cells(vec![Ref::default(); 3 * WORDS].into_boxed_slice())
    }

    /// Cell `i` (below [`WORDS`]).
    #[inline(always)]
    fn get(&self, i: usize) -> Cell {
        Cell {
            write: self.0[i],
            r1: self.0[WORDS + i],
            r2: self.0[2 * WORDS + i],
        }
    }

    /// Sets cell `i` (below [`WORDS`]).
    #[inline(always)]
    fn set(&mut self, i: usize, c: Cell) {
        self.0[i] = c.write;
        self.0[WORDS + i] = c.r1;
        self.0[2 * WORDS + i] = c.r2;
    }

    /// The fields of the cells `range` (within [`WORDS`]): writes, `r1`s, `r2`s.
    #[inline(always)]
    fn fields(&mut self, range: std::ops::Range<usize>) -> [&mut [Ref]; 3] {
        let (write, rest) = self.0.split_at_mut(WORDS);
        let (r1, r2) = rest.split_at_mut(WORDS);
        [write, r1, r2].map(|f| &mut f[range.clone()])
    }

    /// Records `me` (of `mine`) in cell `i` (below [`WORDS`]), which takes it in place
    /// ([`Mine::in_place`]): a write as the last write; a read as the last read, the
    /// earlier one kept as `r2` when it is of another wave. Touches only the fields it
    /// changes or decides by.
    #[inline(always)]
    fn take_in_place(&mut self, i: usize, me: Ref, mine: Mine) {
        if mine.write {
            self.0[i] = me;
        } else {
            let (r1, r2) = self.0[WORDS..].split_at_mut(WORDS);
            take_read(&mut r1[i], &mut r2[i], me, mine);
        }
    }

    /// [`Cells::take_in_place`] of every entry's word (each entry aligned, in the page),
    /// by `me` from the entry's lane: a loop with no test but the read's own. With the
    /// page's `live` bits (when some word is not live), a word not live is made so,
    /// holding only this access ([`Cell::first`]).
    #[inline(always)]
    fn take_all_in_place(
        &mut self,
        entries: &[TraceEntry],
        me: Ref,
        mine: Mine,
        live: Option<&mut [u64; WORDS / 64]>,
    ) {
        // Fixed sizes, so the words' indices (below `WORDS`) need no bounds check. A
        // page's cells always have that size (only a dropped page's are emptied).
        let Ok(cells) = <&mut [Ref; 3 * WORDS]>::try_from(&mut *self.0) else {
            return;
        };
        let index = |e: &TraceEntry| (e.addr / 4) as usize % WORDS;
        let take = |cells: &mut [Ref; 3 * WORDS], i: usize, me: Ref| {
            if mine.write {
                cells[i] = me;
            } else {
                let r1 = cells[WORDS + i];
                if moves_on(r1, mine) {
                    cells[2 * WORDS + i] = r1;
                }
                cells[WORDS + i] = me;
            }
        };
        // Two loops: the one over live words alone has no test of its own.
        let Some(live) = live else {
            for e in entries {
                take(cells, index(e), me.with_lane(e.lane));
            }
            return;
        };
        for e in entries {
            let (i, me) = (index(e), me.with_lane(e.lane));
            let (w, bit) = (i / 64, 1u64 << (i % 64));
            if live[w] & bit == 0 {
                live[w] |= bit;
                let first = Cell::first(me);
                [cells[i], cells[WORDS + i], cells[2 * WORDS + i]] =
                    [first.write, first.r1, first.r2];
            } else {
                take(cells, i, me);
            }
        }
    }
}

/// A read `me` (of `mine`) taken in place by the cell whose last reads are `r1` and `r2`
/// ([`Cells::take_in_place`]).
#[inline(always)]
fn take_read(r1: &mut Ref, r2: &mut Ref, me: Ref, mine: Mine) {
    if moves_on(*r1, mine) {
        *r2 = *r1;
    }
    *r1 = me;
}

/// Whether the last read `r1` moves to `r2` when `mine` reads: it is another wave's.
#[inline(always)]
fn moves_on(r1: Ref, mine: Mine) -> bool {
    let w = r1.wave();
    (w != mine.wave) & (w != 0)
}

/// Whether [`take_read`] moves every one of the last reads `r1` to `r2`.
#[inline(always)]
fn others_read_all(r1: &[Ref], mine: Mine) -> bool {
    r1.iter().fold(true, |all, &r| all & moves_on(r, mine))
}

/// The cells of 1 KiB of memory. A word touched by a 1- or 2-byte access is split into
/// four byte cells from then on, so every cell only ever sees accesses of all its bytes
/// (whole words, or one byte) and keeping the last write and two reads is exact.
#[derive(Debug, Clone)]
struct RacePage {
    /// On the heap by itself, built there (a page built on the stack and moved to the
    /// heap costs a copy of its 9 KiB). A cell whose bit in `live` is clear is empty
    /// whatever it holds (cells are reused from dropped pages without clearing them).
    words: Cells,
    /// A bit per word: its cell was written since the page was made.
    live: [u64; WORDS / 64],
    /// Split words: their byte cells.
    bytes: HashMap<u16, [Cell; 4], BuildHasherDefault<PageHasher>>,
    /// Each cell's last read by a workgroup other than its last reader's, for the few
    /// cells that have one (words read by several workgroups), keyed by
    /// `5 * word + (0 for the whole word, 1 + b for byte b)`. Kept out of the cells so
    /// they stay 36 bytes.
    r3: HashMap<u32, Ref, BuildHasherDefault<PageHasher>>,
    /// Whose records the cells (word, byte and third) hold.
    holders: PageHolders,
    /// Bit `b`: block `b` (words `32 * b..32 * b + 32`) is held by `blocks[b]` instead of
    /// its cells, which are stale. Set while every access to the block was by a whole
    /// wave, lane `k` on word `k` of the block (a kernel streaming over its data): then
    /// each field of its 32 cells is one access by lanes 0-31, and one record per field
    /// stands for them, tested and updated once per instruction instead of 32 times.
    /// Such a block has no split word and no third read ([`RacePage::expand`] writes its
    /// cells back before anything else touches them).
    uniform: u8,
    /// The records of the blocks in `uniform`, as the fields of a [`Cell`] (`[write, r1,
    /// r2]`) by lane 0: word `k`'s cell holds each one that is not empty with lane `k`.
    blocks: [[Ref; 3]; BLOCKS],
    /// Reads and atomics of consecutive words that every cell they touch takes in place
    /// (the holders tell: they race with nothing), not yet written to the cells; oldest
    /// first, at most [`DEFERRED`]. [`RacePage::flush`] writes them before any access
    /// that is not deferred looks at the cells, newest first (meanwhile the `live` bits
    /// may lag behind them, and no block one touches is held by its records: deferring
    /// writes those back), so that each word's records are written once however many of
    /// them touched it: eight waves' atomics sweeping over the same words rewrote each
    /// cell once per wave-instruction, a third of a checked shared-atomics kernel's time.
    deferred: Vec<Deferred>,
}

/// Most reads a page defers ([`RacePage::deferred`]) before writing them to its cells.
const DEFERRED: usize = 128;

/// A read or atomic a page has not yet written to its cells ([`RacePage::deferred`]): by
/// `me`'s lane and the lanes above it, on the `n` words from `index`, one each (round the
/// page's end: a rotation's two runs in one page are one deferred read).
#[derive(Debug, Clone, Copy)]
struct Deferred {
    me: Ref,
    index: u16,
    n: u16,
}

/// A set of a page's words, a bit each.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct WordSet([u64; WORDS / 64]);

/// A run of at most 32 words in a [`WordSet`]: its bits in words `.0` and `.0 + 1` (the
/// page's first word after its last: a run may wrap round the page's end).
type Span = (usize, [u64; 2]);

/// The word of bits after word `w` of a [`WordSet`], round the page's end.
#[inline(always)]
fn next_bits(w: usize) -> usize {
    (w + 1) % (WORDS / 64)
}

impl WordSet {
    /// The `n` words (1-32) from `index` (below [`WORDS`]; round the page's end past it),
    /// as a [`Span`].
    #[inline(always)]
    fn run(index: usize, n: usize) -> Span {
        let bits = ((1u128 << n) - 1) << (index % 64);
        (index / 64, [bits as u64, (bits >> 64) as u64])
    }

    /// The words of `span` not in the set.
    #[inline(always)]
    fn not_in(&self, (w, bits): Span) -> Span {
        (w, [bits[0] & !self.0[w], bits[1] & !self.0[next_bits(w)]])
    }

    /// Adds the words of `span`.
    #[inline(always)]
    fn add(&mut self, (w, bits): Span) {
        self.0[w] |= bits[0];
        self.0[next_bits(w)] |= bits[1];
    }

    #[inline(always)]
    fn has(&self, word: usize) -> bool {
        self.0[word / 64] >> (word % 64) & 1 != 0
    }
}

/// Whether `span` holds no word.
#[inline(always)]
fn span_empty((_, bits): Span) -> bool {
    bits[0] | bits[1] == 0
}

/// The word of its page an entry's aligned word is.
#[inline(always)]
fn word_index(e: &TraceEntry) -> usize {
    (e.addr / 4) as usize % WORDS
}

/// Calls `f` with each word of `span`, in order from its first.
#[inline(always)]
fn span_words((w, bits): Span, mut f: impl FnMut(usize)) {
    for (w, mut b) in [w, next_bits(w)].into_iter().zip(bits) {
        while b != 0 {
            f(64 * w + b.trailing_zeros() as usize);
            b &= b - 1;
        }
    }
}

/// Most race pages' cells a thread keeps for reuse (4.5 MiB).
const SPARE_PAGES: usize = 512;

thread_local! {
    /// Cells of dropped race pages, for the next pages this thread makes: a launch's
    /// shadow is dropped with its machine, the allocator hands memory that size back to
    /// the kernel, and the next launch's pages would fault it in again (page by page,
    /// each zeroed by the kernel); reusing cells still in the cache costs less (they are
    /// not cleared: a page's `live` bits say which of its cells hold history).
    static SPARE: RefCell<Vec<Cells>> = const { RefCell::new(Vec::new()) };
}

impl Default for RacePage {
    fn default() -> Self {
        let words = SPARE.with_borrow_mut(Vec::pop).unwrap_or_else(Cells::new);
        RacePage {
            words,
            live: [0; WORDS / 64],
            bytes: HashMap::default(),
            r3: HashMap::default(),
            holders: PageHolders::default(),
            uniform: 0,
            blocks: [[Ref::default(); 3]; BLOCKS],
            deferred: Vec::new(),
        }
    }
}

impl Drop for RacePage {
    fn drop(&mut self) {
        let words = std::mem::replace(&mut self.words, Cells(Box::default()));
        if words.0.len() == 3 * WORDS {
            // `try_with`: a page dropped while the thread exits is simply freed.
            let _ = SPARE.try_with(|spare| {
                let mut spare = spare.borrow_mut();
                if spare.len() < SPARE_PAGES {
                    spare.push(words);
                }
            });
        }
    }
}

impl RacePage {
    /// Counts `me`'s wave in the page's holders: before [`RacePage::access`] records it
    /// (once per instruction and page: every lane of one is of one wave).
    #[inline(always)]
    fn hold(&mut self, me: Ref, g: Groups) {
        self.holders.add(Mine::of(me, g));
    }

    /// Records `me` (whose mask says which bytes of word `index` it touches).
    /// The caller has counted it in the holders ([`RacePage::hold`]).
    #[inline]
    fn access(
        &mut self,
        index: usize,
        me: Ref,
        g: Groups,
        hb: &impl Fn(&Ref, &Ref) -> bool,
    ) -> Option<Conflict> {
        self.flush();
        let key = 5 * index as u32;
        self.expand(index / LANES);
        if self.first_touch(index, me) {
            return None;
        }
        if me.mask() == 0xf && self.bytes.is_empty() {
            return self.word_cell(index, key, me, (g, hb));
        }
        let word = self.words.get(index);
        let bytes = match self.bytes.entry(index as u16) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) if me.mask() != 0xf => {
                // Split: each byte inherits the word's history.
                if let Some(r) = self.r3.get(&key).copied() {
                    for b in 0..4u8 {
                        self.r3.insert(key + 1 + b as u32, r.with_mask(1 << b));
                    }
                }
                e.insert(std::array::from_fn(|b| word.narrowed(1 << b)))
            }
            std::collections::hash_map::Entry::Vacant(_) => {
                return self.word_cell(index, key, me, (g, hb));
            }
        };
        let mut found = None;
        for (b, cell) in bytes.iter_mut().enumerate() {
            if me.mask() >> b & 1 == 1 {
                let c = Self::cell(
                    cell,
                    &mut self.r3,
                    key + 1 + b as u32,
                    me.with_mask(1 << b),
                    (g, hb),
                );
                found = found.or(c);
            }
        }
        found
    }

    /// Records whole-word accesses (`me`, mask 0xf) of the leading `entries` that are
    /// aligned words in this page (number `key`); returns how many it recorded: 0 when
    /// a word of the page is split: those go through [`RacePage::access`].
    #[inline]
    fn words(
        &mut self,
        entries: &[TraceEntry],
        key: u64,
        me: Ref,
        (g, hb): (Groups, &impl Fn(&Ref, &Ref) -> bool),
        conflict: &mut impl FnMut(&TraceEntry, Conflict),
    ) -> usize {
        if !self.bytes.is_empty() {
            return 0;
        }
        let n = (entries.iter())
            .position(|e| e.addr / RACE_PAGE != key || e.addr % 4 != 0)
            .unwrap_or(entries.len());
        let entries = &entries[..n];
        let mut words = self.prepare_words(entries, me, g);
        if self.take_words(&words, entries, me) {
            return n;
        }
        for e in entries {
            if let Some(c) = words.word(self, word_index(e), me.with_lane(e.lane), (g, hb)) {
                conflict(e, c);
            }
        }
        n
    }

    /// The cells as [`Words`] sees them for `me`'s whole-word accesses by `entries`
    /// (aligned words of this page, none split), once the deferred reads are written and
    /// the blocks the entries touch are written back to their cells.
    #[inline(always)]
    fn prepare_words(&mut self, entries: &[TraceEntry], me: Ref, g: Groups) -> Words {
        self.flush();
        if self.uniform != 0 {
            for e in entries {
                self.expand(word_index(e) / LANES);
            }
        }
        Words::new(self, me, g)
    }

    /// Takes `me`'s accesses by `entries` (as [`RacePage::prepare_words`] left the cells,
    /// seen as `words`) in one pass when every live cell takes them in place (a gathered
    /// atomic on words the workgroup has been updating, a transpose's column): nothing
    /// else to decide. Returns whether it did.
    #[inline(always)]
    fn take_words(&mut self, words: &Words, entries: &[TraceEntry], me: Ref) -> bool {
        if !(words.plain && words.clear) {
            return false;
        }
        let live = (!words.all_live).then_some(&mut self.live);
        self.words.take_all_in_place(entries, me, words.mine, live);
        true
    }

    /// Records whole-word accesses (`me`, mask 0xf) of the lanes `lanes` on consecutive
    /// words of this page, lane `first` on word `index`, lane `l` on word
    /// `index + l - first`, as [`RacePage::words`] does for their entries (and
    /// [`RacePage::access`] when a word of the page is split), taken without a pass over
    /// the cells where the page can ([`RacePage::take`]) unless `tried` (the caller
    /// tried that already). `conflict` gets the lane.
    #[inline(always)]
    fn run(
        &mut self,
        (lanes, first, index): (u32, u32, usize),
        me: Ref,
        tried: bool,
        (g, hb): (Groups, &impl Fn(&Ref, &Ref) -> bool),
        conflict: &mut impl FnMut(u32, Conflict),
    ) {
        if !tried && self.take((lanes, first, index), me, g) {
            return;
        }
        self.run_now((lanes, first, index), me, (g, hb), conflict);
    }

    /// Takes `me`'s whole-word accesses by the lanes `lanes` (as [`RacePage::run`]
    /// records them) without a pass over the cells when the page can: deferred
    /// ([`RacePage::defer`]), or, a whole wave on an aligned block with nothing deferred,
    /// in the block's records ([`RacePage::block`]: a stream's whole waves; a failed try
    /// leaves it failing again in `run_now`). Returns whether it did.
    #[inline(always)]
    fn take(&mut self, (lanes, first, index): (u32, u32, usize), me: Ref, g: Groups) -> bool {
        if self.defer((lanes, first, index), me, g) {
            return true;
        }
        let whole = lanes == u32::MAX && index % LANES == 0;
        whole && self.deferred.is_empty() && self.block(index / LANES, me, g)
    }

    /// [`RacePage::run`] past the deferral and the block held by its records. Out of
    /// line: inlined, its loop invariants and spills made the frame of
    /// [`RaceShadow::access_run`] a third of a deferred read's cost there.
    #[inline(never)]
    fn run_now(
        &mut self,
        (lanes, first, index): (u32, u32, usize),
        me: Ref,
        (g, hb): (Groups, &impl Fn(&Ref, &Ref) -> bool),
        conflict: &mut impl FnMut(u32, Conflict),
    ) {
        self.flush();
        if lanes == u32::MAX && index % LANES == 0 && self.block(index / LANES, me, g) {
            return;
        }
        // The blocks the run touches (words `index..index + span`) are written back to
        // their cells.
        let span = (32 - lanes.leading_zeros() - first) as usize;
        if self.uniform != 0 {
            for b in index / LANES..=((index + span - 1) / LANES).min(BLOCKS - 1) {
                self.expand(b);
            }
        }
        // Lanes without a gap: `n` words from `index`.
        let n = lanes.count_ones() as usize;
        let lanes_in = |first: u32, index: usize| {
            (lanes >> first == u32::MAX >> (32 - n)).then_some((first, index, n))
        };
        let lanes = Lanes(lanes).map(|l| l as u32);
        if !self.bytes.is_empty() {
            self.hold(me, g);
            for l in lanes {
                let me = me.with_lane(l as u8);
                if let Some(c) = self.access(index + (l - first) as usize, me, g, hb) {
                    conflict(l, c);
                }
            }
            return;
        }
        if self.in_place(lanes_in(first, index), me, g) {
            return;
        }
        let mut words = Words::new(self, me, g);
        for l in lanes {
            let index = index + (l - first) as usize;
            if let Some(c) = words.word(self, index, me.with_lane(l as u8), (g, hb)) {
                conflict(l, c);
            }
        }
    }

    /// Defers `me`'s read or atomic by the lanes `lanes` on consecutive words (round the
    /// page's end past it), lane `first` on word `index` ([`RacePage::deferred`]), when
    /// the holders tell that every cell takes it in place ([`PageHolders::in_place`]) and
    /// recording it now would cost a pass over its cells: not when every read the page
    /// holds is this wave's (then it only replaces last reads), nor for a whole wave on
    /// an aligned block that [`RacePage::block`] holds in one record. Returns whether it was deferred
    /// (counted in the holders; written to the cells when [`DEFERRED`] are waiting).
    #[inline(always)]
    fn defer(&mut self, (lanes, first, index): (u32, u32, usize), me: Ref, g: Groups) -> bool {
        // Inline, the tests most accesses fail: writes, reads where every read is this
        // wave's, a whole wave on an aligned block held by its records.
        let whole = lanes == u32::MAX && index % LANES == 0;
        if me.is_write()
            || self.holders.reads.only(me.wave())
            || whole && self.uniform & 1 << (index / LANES) != 0
        {
            return false;
        }
        self.defer_run((lanes, first, index), me, g)
    }

    /// [`RacePage::defer`] past its inline tests.
    #[inline(never)]
    fn defer_run(&mut self, (lanes, first, index): (u32, u32, usize), me: Ref, g: Groups) -> bool {
        // The lanes from `first` (the lowest) on: `n` without a gap when `from + 1` is a
        // power of two (no bit count: the build's baseline has no instruction for it).
        let from = lanes >> first;
        let n = (u32::BITS - from.leading_zeros()) as usize;
        // Not either when a whole wave is on an aligned block whose words are all first
        // touched (which makes it held by its records: [`RacePage::block`]).
        if from & from.wrapping_add(1) != 0
            || n == 0
            || !self.bytes.is_empty()
            || !self.r3.is_empty()
            || n == LANES && index % LANES == 0 && self.live_of(index, LANES) == 0
        {
            return false;
        }
        let mine = Mine::of(me, g);
        if !self.holders.in_place(mine) {
            return false;
        }
        if self.uniform != 0 {
            for k in 0..=(index % LANES + n - 1) / LANES {
                self.expand((index / LANES + k) % BLOCKS);
            }
        }
        self.holders.add(mine);
        self.deferred.push(Deferred {
            me: me.with_lane(first as u8),
            index: index as u16,
            n: n as u16,
        });
        if self.deferred.len() >= DEFERRED {
            self.flush_deferred();
        }
        true
    }

    /// Writes the deferred reads to the cells ([`RacePage::deferred`]), if any.
    #[inline(always)]
    fn flush(&mut self) {
        if !self.deferred.is_empty() {
            self.flush_deferred();
        }
    }

    /// [`RacePage::flush`]: leaves each cell as taking the deferred reads in place one by
    /// one in order would ([`take_read`]). A word's last read is the newest on it; its
    /// `r2` is the newest on it by a wave other than the last read's, or if there is none,
    /// the cell's last read before them when that is of another wave, or else the cell's
    /// `r2` as it was. Found newest first: each word's last read (with that fallback `r2`)
    /// when the newest read on it is met, its `r2` when an older one by another wave is.
    #[inline(never)]
    fn flush_deferred(&mut self) {
        let mut log = std::mem::take(&mut self.deferred);
        // The whole log is walked: a walk that stopped once every word the log covers had
        // its `r2` needed the covered words first, a pass over the log that cost more
        // than it saved (sweeping reads reach new words at the old end until the last).
        let (mut got1, mut got2) = (WordSet::default(), WordSet::default());
        let live = WordSet(self.live);
        let [write, c1, c2] = self.words.fields(0..WORDS);
        // The words whose last read is met, by that read's wave (id + 1), in slot
        // `wave % 8`; `all_waves` while every wave met has the slot to itself.
        let mut by_wave = [(0u32, WordSet::default()); 8];
        let mut all_waves = true;
        for e in log.iter().rev() {
            let (index, wave) = (e.index as usize, e.me.wave());
            let run = WordSet::run(index, e.n as usize);
            // Every word whose `r2` is met has its last read (met first): nothing left.
            let open = got2.not_in(run);
            if span_empty(open) {
                continue;
            }
            let slot = &mut by_wave[wave as usize % 8];
            let new1 = got1.not_in(run);
            if !span_empty(new1) {
                span_words(new1, |j| {
                    // A cell not live holds no record (whatever its fields hold).
                    let old1 = if live.has(j) {
                        c1[j]
                    } else {
                        write[j] = Ref::default();
                        c2[j] = Ref::default();
                        Ref::default()
                    };
                    if old1.wave() != 0 && old1.wave() != wave {
                        c2[j] = old1;
                    }
                    c1[j] = e.me.lanes_on((j + WORDS - index) % WORDS);
                });
                got1.add(new1);
                if slot.0 == wave || slot.0 == 0 {
                    slot.0 = wave;
                    slot.1.add(new1);
                } else {
                    all_waves = false;
                }
            }
            // Words whose `r2` is not met yet: this read is the `r2` of those whose last
            // read is of another wave (not of those whose last read it is).
            if all_waves {
                let open = if slot.0 == wave {
                    slot.1.not_in(open)
                } else {
                    open
                };
                span_words(open, |j| {
                    c2[j] = e.me.lanes_on((j + WORDS - index) % WORDS);
                });
                got2.add(open);
            } else {
                span_words(open, |j| {
                    if c1[j].wave() != wave {
                        c2[j] = e.me.lanes_on((j + WORDS - index) % WORDS);
                        got2.0[j / 64] |= 1 << (j % 64);
                    }
                });
            }
        }
        // Every word the log covers has its last read now.
        self.live = std::array::from_fn(|w| live.0[w] | got1.0[w]);
        log.clear();
        self.deferred = log;
    }

    /// Records `me`'s whole-word accesses by lanes 0-31 on the words of block `b`, lane `k`
    /// on its word `k`, in the block's records ([`RacePage::uniform`]) when the block is
    /// held by them and takes the access in place ([`Mine::in_place`], the same for every
    /// cell of the block: it does not look at lanes), or when no word of the block is live
    /// (the block is then made uniform). False, having changed nothing but written the
    /// block back to its cells if it was uniform, otherwise.
    #[inline]
    fn block(&mut self, b: usize, me: Ref, g: Groups) -> bool {
        let bit = 1u8 << b;
        let me = me.with_lane(0);
        let mine = Mine::of(me, g);
        if self.uniform & bit != 0 {
            let [write, r1, r2] = &mut self.blocks[b];
            if !mine.in_place_of(*write, *r1, *r2) {
                self.expand(b);
                return false;
            }
            if mine.write {
                *write = me;
            } else {
                take_read(r1, r2, me, mine);
            }
        } else if self.live_of(b * LANES, LANES) == 0 {
            // First touches: what [`RacePage::in_place`] leaves in the cells.
            let first = Cell::first(me);
            self.blocks[b] = [first.write, first.r1, first.r2];
            self.set_live(b * LANES, LANES);
            self.uniform |= bit;
        } else {
            return false;
        }
        self.holders.add(mine);
        true
    }

    /// Writes block `b`'s records back to its cells if it is held by them
    /// ([`RacePage::uniform`]).
    #[inline(always)]
    fn expand(&mut self, b: usize) {
        if self.uniform & 1 << b != 0 {
            self.write_back(b);
        }
    }

    /// [`RacePage::expand`] of a block held by its records (once per block at most, so
    /// out of its callers' loops).
    #[inline(never)]
    fn write_back(&mut self, b: usize) {
        self.uniform &= !(1 << b);
        let records = self.blocks[b];
        let fields = self.words.fields(b * LANES..(b + 1) * LANES);
        for (field, r) in fields.into_iter().zip(records) {
            for (k, cell) in field.iter_mut().enumerate() {
                *cell = if r.wave() == 0 {
                    Ref::default()
                } else {
                    r.lanes_on(k)
                };
            }
        }
    }

    /// Records `me`'s whole-word accesses by lanes `first..first + n` on the `n` words from
    /// `index` when [`Words::word`] would update each cell in place (no split word or third
    /// read in the page; every cell first touched, or every cell live with no record that
    /// may race): checked for all cells first, then all updated; false, having changed
    /// nothing, otherwise.
    #[inline]
    fn in_place(&mut self, run: Option<(u32, usize, usize)>, me: Ref, g: Groups) -> bool {
        let Some((first, index, n)) = run else {
            return false;
        };
        if !self.bytes.is_empty() || !self.r3.is_empty() {
            return false;
        }
        if index + n > WORDS {
            return false;
        }
        let live = self.live_of(index, n);
        let [write, r1, r2] = self.words.fields(index..index + n);
        let me = me.with_lane(first as u8);
        let lane = |k: usize| me.lanes_on(k);
        let mine = Mine::of(me, g);
        if live == 0 {
            // First touches (a kernel's first pass over its data): each cell holds only
            // its lane's access.
            for k in 0..n {
                self.words.set(index + k, Cell::first(lane(k)));
            }
            self.holders.add(mine);
            self.set_live(index, n);
            return true;
        }
        if live != n {
            return false;
        }
        // The holders, or else a first pass over the cells, decide for all of them.
        if !self.holders.in_place(mine) && !cells_in_place([&*write, &*r1, &*r2], mine) {
            return false;
        }
        // A read when every read record is of this wave (or there is none) only
        // replaces the last read: the cells' reads are not looked at (not loaded, for a
        // run over memory the cache no longer holds).
        let own_reads = !mine.write && self.holders.reads.only(mine.wave);
        self.holders.add(mine);
        if mine.write {
            for (k, r) in write.iter_mut().enumerate() {
                *r = lane(k);
            }
        } else if own_reads {
            for (k, r) in r1.iter_mut().enumerate() {
                *r = lane(k);
            }
        } else if others_read_all(r1, mine) {
            // Every last read moves to `r2` (eight waves' atomics on the same words): one
            // copy, then the new reads, instead of a test and a move per cell.
            r2.copy_from_slice(r1);
            for (k, r) in r1.iter_mut().enumerate() {
                *r = lane(k);
            }
        } else {
            for (k, (r1, r2)) in r1.iter_mut().zip(r2.iter_mut()).enumerate() {
                take_read(r1, r2, lane(k), mine);
            }
        }
        true
    }

    /// How many of the cells of the `n` words from `index` are live.
    #[inline(always)]
    fn live_of(&self, index: usize, n: usize) -> usize {
        let mut live = 0;
        // One bit per word, as an init page keeps one per byte.
        for_bits(index as u64, n as u64, |w, bits| {
            live += self
                .live
                .get(w)
                .map_or(0, |&x| (x & bits).count_ones() as usize)
        });
        live
    }

    /// Makes the cells of the `n` words from `index` live.
    #[inline(always)]
    fn set_live(&mut self, index: usize, n: usize) {
        for_bits(index as u64, n as u64, |w, bits| {
            if let Some(x) = self.live.get_mut(w) {
                *x |= bits;
            }
        });
    }

    /// Makes word `index`'s cell live if it is not: empty, then holding `me`'s access of
    /// the whole word (which races with nothing). Returns whether `me` was recorded so;
    /// an access of some bytes of a word not yet live leaves it empty, to be split.
    #[inline(always)]
    fn first_touch(&mut self, index: usize, me: Ref) -> bool {
        let (w, bit) = (index / 64, 1u64 << (index % 64));
        if self.live[w] & bit != 0 {
            return false;
        }
        self.live[w] |= bit;
        // No record of a cell that was not live is anywhere else: split words and third
        // reads are made only for live cells.
        if me.mask() != 0xf {
            self.words.set(index, Cell::default());
            return false;
        }
        self.words.set(index, Cell::first(me));
        true
    }

    /// [`RacePage::cell`] of word `index`'s cell (below [`WORDS`]).
    #[inline(always)]
    fn word_cell(
        &mut self,
        index: usize,
        key: u32,
        me: Ref,
        (g, hb): (Groups, &impl Fn(&Ref, &Ref) -> bool),
    ) -> Option<Conflict> {
        let mut cell = self.words.get(index);
        let c = Self::cell(&mut cell, &mut self.r3, key, me, (g, hb));
        self.words.set(index, cell);
        c
    }

    /// One cell's access, with its out-of-cell third read record under `key`.
    #[inline(always)]
    fn cell(
        cell: &mut Cell,
        r3: &mut HashMap<u32, Ref, BuildHasherDefault<PageHasher>>,
        key: u32,
        me: Ref,
        (g, hb): (Groups, &impl Fn(&Ref, &Ref) -> bool),
    ) -> Option<Conflict> {
        let third = if r3.is_empty() {
            None
        } else {
            r3.get(&key).copied()
        };
        let (conflict, new_third) = cell.access(me, (g, hb), third);
        if let Some(r) = new_third {
            r3.insert(key, r);
        }
        conflict
    }
}

/// The state [`RacePage::words`] and [`RacePage::run`] keep across the whole-word
/// accesses of one instruction to one page without split words.
struct Words {
    /// Every cell of the page is live (the steady state of a kernel that loops over its
    /// data): the per-word live bit is not looked at.
    all_live: bool,
    /// The page keeps no third read: cells may be updated in place.
    plain: bool,
    /// The page's holders say every cell takes the access in place
    /// ([`PageHolders::in_place`]): no cell is looked at first.
    clear: bool,
    /// The access, taken apart once.
    mine: Mine,
}

impl Words {
    /// Takes the page's holders before counting `me` in them (it is recorded in the cells
    /// next, and a wave's own records never race with it).
    fn new(page: &mut RacePage, me: Ref, g: Groups) -> Words {
        let mine = Mine::of(me, g);
        let clear = page.holders.in_place(mine);
        page.holders.add(mine);
        Words {
            all_live: page.live == [u64::MAX; WORDS / 64],
            plain: page.r3.is_empty(),
            clear,
            mine,
        }
    }

    /// Records `me` (a lane's whole-word access) on word `index` of `page`.
    #[inline(always)]
    fn word(
        &mut self,
        page: &mut RacePage,
        index: usize,
        me: Ref,
        (g, hb): (Groups, &impl Fn(&Ref, &Ref) -> bool),
    ) -> Option<Conflict> {
        let mine = self.mine;
        if index >= WORDS {
            return None;
        }
        if !self.all_live {
            let (w, bit) = (index / 64, 1u64 << (index % 64));
            if page.live[w] & bit == 0 {
                page.live[w] |= bit;
                page.words.set(index, Cell::first(me));
                return None;
            }
        }
        // While the page keeps no third read, a cell that takes `me` in place
        // ([`Mine::in_place`]) is updated there. Any other cell goes through
        // [`Cell::access`].
        if self.plain && (self.clear || mine.in_place(&page.words.get(index))) {
            page.words.take_in_place(index, me, mine);
            return None;
        }
        let c = page.word_cell(index, 5 * index as u32, me, (g, hb));
        self.plain = page.r3.is_empty();
        c
    }
}

/// The race shadow of one address space (a workgroup's shared memory, or global memory).
#[derive(Debug)]
pub(super) struct RaceShadow {
    /// Its pages in the order they were made, shared with its clones (snapshots) until
    /// written, without `Arc::make_mut`'s check while they are its own ([`Held`]).
    pages: Vec<Held<RacePage>>,
    /// Each page's place in `pages`, by key (pages are never dropped one by one).
    places: HashMap<u64, u32, BuildHasherDefault<PageHasher>>,
    /// The key and place of the page last looked up among the keys of each set (a hash
    /// of the key picks the set): a kernel's accesses keep to a few pages at a time, and
    /// a look-up here costs a few instructions where `places` costs tens.
    recent: [(u64, u32); RECENT],
    owner: Owner,
}

/// Sets of [`RaceShadow::recent`].
const RECENT: usize = 16;

/// A key no page has (keys are addresses over [`RACE_PAGE`]): [`RaceShadow::recent`]'s
/// empty sets.
const NO_KEY: u64 = u64::MAX;

/// The set of [`RaceShadow::recent`] for key `key`: a multiplicative hash, as buffers'
/// pages a power of two apart (each wave's part of a buffer) would share a set by key
/// modulo [`RECENT`].
#[inline(always)]
fn recent_set(key: u64) -> usize {
    (key.wrapping_mul(GOLDEN) >> (64 - RECENT.trailing_zeros())) as usize
}

/// What [`RaceShadow::take_trace`] did with an instruction's accesses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Take {
    /// Taken without a pass over the cells: nothing more to record.
    Taken,
    /// Aligned words on one page that the page could not take so: to record one by one.
    Refused,
    /// Not tried (not aligned words on one page): runs of aligned words may still be
    /// taken page by page.
    Untried,
}

impl Default for RaceShadow {
    fn default() -> Self {
        RaceShadow {
            pages: Vec::new(),
            places: HashMap::default(),
            recent: [(NO_KEY, 0); RECENT],
            owner: Owner::default(),
        }
    }
}

impl Clone for RaceShadow {
    fn clone(&self) -> Self {
        // Every page is shared from now on, by both shadows.
        let owner = self.owner.share();
        RaceShadow {
            pages: self.pages.iter().map(Held::share).collect(),
            places: self.places.clone(),
            recent: self.recent,
            owner,
        }
    }
}

impl RaceShadow {
    /// The page of key `key` for writing: made first when absent, copied first when
    /// shared (copy-on-write).
    #[inline(always)]
    fn page_mut(&mut self, key: u64) -> &mut RacePage {
        let (k, place) = self.recent[recent_set(key)];
        let place = if k == key { place } else { self.place(key) };
        let stamp = self.owner.stamp();
        self.pages[place as usize].get_mut(stamp)
    }

    /// The place in `pages` of the page of key `key`, made first when absent; kept in
    /// `recent`.
    #[inline(never)]
    fn place(&mut self, key: u64) -> u32 {
        let stamp = self.owner.stamp();
        let pages = &mut self.pages;
        let place = *self.places.entry(key).or_insert_with(|| {
            pages.push(Held::unique(Arc::default(), stamp));
            (pages.len() - 1) as u32
        });
        self.recent[recent_set(key)] = (key, place);
        place
    }

    /// [`RaceShadow::record_all`], once [`RaceShadow::take_entries`] has not taken the
    /// entries, as the sanitizer asks them ([`RaceShadow::take_trace`]).
    #[cfg(test)]
    pub fn access_all(
        &mut self,
        entries: &[TraceEntry],
        len: u32,
        me: Ref,
        (g, hb): (Groups, &impl Fn(&Ref, &Ref) -> bool),
        conflict: &mut impl FnMut(&TraceEntry, Conflict),
    ) {
        if self.take_entries(entries, len, me, g) != Take::Taken {
            self.record_all(entries, len, me, (g, hb), conflict);
        }
    }

    /// Takes `me`'s accesses by `entries` (`len` bytes each) in one pass, as
    /// [`RacePage::take_words`] does, when they are aligned words on one page.
    #[inline(always)]
    fn take_entries(&mut self, entries: &[TraceEntry], len: u32, me: Ref, g: Groups) -> Take {
        let Some(key) = entries.first().map(|e| e.addr / RACE_PAGE) else {
            return Take::Untried;
        };
        if len != 4 || (entries.iter()).any(|e| e.addr / RACE_PAGE != key || e.addr % 4 != 0) {
            return Take::Untried;
        }
        let page = self.page_mut(key);
        page.hold(me, g);
        if !page.bytes.is_empty() {
            return Take::Refused;
        }
        let me = me.with_mask(0xf);
        let words = page.prepare_words(entries, me, g);
        match page.take_words(&words, entries, me) {
            true => Take::Taken,
            false => Take::Refused,
        }
    }

    /// Records the accesses of one instruction (each entry `len` bytes at its `addr`, by
    /// `me` from the entry's lane; `g` names workgroups; `hb` says whether an earlier
    /// access barriers leave concurrent is ordered before by release/acquire), calling
    /// `conflict` with every earlier access one races with (at most one per word and
    /// lane). Runs of entries on one page look the page up once. Aligned words on one
    /// page are offered to [`RacePage::take_words`] again, even when
    /// [`RaceShadow::take_entries`] refused them: a refusal costs little.
    fn record_all(
        &mut self,
        entries: &[TraceEntry],
        len: u32,
        me: Ref,
        (g, hb): (Groups, &impl Fn(&Ref, &Ref) -> bool),
        conflict: &mut impl FnMut(&TraceEntry, Conflict),
    ) {
        let len = len.max(1) as u64;
        let mut i = 0;
        while i < entries.len() {
            let key = entries[i].addr / RACE_PAGE;
            let page = self.page_mut(key);
            page.hold(me, g);
            if len == 4 {
                i += page.words(&entries[i..], key, me.with_mask(0xf), (g, hb), conflict);
            }
            while let Some(e) = entries.get(i) {
                let end = e.addr.saturating_add(len);
                if e.addr / RACE_PAGE != key || (end - 1) / RACE_PAGE != key {
                    break;
                }
                let me = me.with_lane(e.lane);
                // The common access: one aligned word.
                if len == 4 && e.addr % 4 == 0 {
                    let index = ((e.addr / 4) % WORDS as u64) as usize;
                    if let Some(c) = page.access(index, me.with_mask(0xf), g, hb) {
                        conflict(e, c);
                    }
                    i += 1;
                    continue;
                }
                let mut word = e.addr / 4;
                while word * 4 < end {
                    let lo = (word * 4).max(e.addr) - word * 4;
                    let hi = ((word + 1) * 4).min(end) - word * 4;
                    let mask = ((1u16 << hi) - (1u16 << lo)) as u8;
                    let index = (word % WORDS as u64) as usize;
                    if let Some(c) = page.access(index, me.with_mask(mask), g, hb) {
                        conflict(e, c);
                    }
                    word += 1;
                }
                i += 1;
            }
            // An access across a page boundary (unaligned wide accesses): word by word.
            if let Some(e) = entries.get(i).filter(|e| e.addr / RACE_PAGE == key) {
                let end = e.addr.saturating_add(len);
                let mut word = e.addr / 4;
                while word * 4 < end {
                    let lo = (word * 4).max(e.addr) - word * 4;
                    let hi = ((word + 1) * 4).min(end) - word * 4;
                    let mask = ((1u16 << hi) - (1u16 << lo)) as u8;
                    let page = self.page_mut(word / WORDS as u64);
                    page.hold(me, g);
                    let index = (word % WORDS as u64) as usize;
                    let me = me.with_lane(e.lane).with_mask(mask);
                    if let Some(c) = page.access(index, me, g, hb) {
                        conflict(e, c);
                    }
                    word += 1;
                }
                i += 1;
            }
        }
    }

    /// [`RaceShadow::record_trace`], once [`RaceShadow::take_trace`] has not taken the
    /// trace, as the sanitizer asks them (the first maybe earlier: `Sanitizer::memory`).
    #[cfg(test)]
    pub fn access_trace(
        &mut self,
        trace: &MemTrace,
        me: Ref,
        (g, hb): (Groups, &impl Fn(&Ref, &Ref) -> bool),
        conflict: &mut impl FnMut(&TraceEntry, Conflict),
    ) {
        match self.take_trace(trace, me, g) {
            Take::Taken => {}
            t => self.record_trace(trace, me, t == Take::Refused, (g, hb), conflict),
        }
    }

    /// Takes `me`'s accesses, `trace`'s, without a look at each cell when they are aligned
    /// words on one page and the page can: one run ([`RacePage::take`]); a read's or
    /// atomic's rotation, whose two runs are one run round the page's end (the first
    /// ending at its last word, the second from its first word on the lanes after the
    /// first's), deferred ([`RacePage::defer`]); or entries, in one pass
    /// ([`RaceShadow::take_entries`]). Otherwise, nothing changed but the page may be
    /// made; [`RaceShadow::record_trace`] then records the accesses.
    #[inline(always)]
    pub fn take_trace(&mut self, trace: &MemTrace, me: Ref, g: Groups) -> Take {
        let Some(run) = trace.run else {
            return self.take_entries(&trace.entries, trace.len, me, g);
        };
        if trace.len != 4 || !run.addr.is_multiple_of(4) {
            return Take::Untried;
        }
        let key = run.addr / RACE_PAGE;
        let first = run.first();
        let index = (run.addr / 4) as usize % WORDS;
        let me = me.with_mask(0xf);
        // Compared within the page: no sum can overflow, whatever the addresses.
        let taken = match trace.run2 {
            None => {
                let span = (32 - run.lanes.leading_zeros() - first) as u64;
                if run.addr % RACE_PAGE + 4 * span > RACE_PAGE {
                    return Take::Untried;
                }
                self.page_mut(key).take((run.lanes, first, index), me, g)
            }
            Some(run2) => {
                let n1 = run.lanes.count_ones();
                if me.is_write()
                    || run.addr % RACE_PAGE + 4 * n1 as u64 != RACE_PAGE
                    || run2.addr / RACE_PAGE != key
                    || !run2.addr.is_multiple_of(RACE_PAGE)
                    || run2.first() != first + n1
                {
                    return Take::Untried;
                }
                let lanes = run.lanes | run2.lanes;
                self.page_mut(key).defer((lanes, first, index), me, g)
            }
        };
        match taken {
            true => Take::Taken,
            false => Take::Refused,
        }
    }

    /// Records the accesses of `trace` as [`RaceShadow::record_all`] records entries
    /// (its entries, or its runs in order: aligned words page by page, no entry made;
    /// other sizes expanded), after [`RaceShadow::take_trace`] did not take them: runs
    /// of aligned words are taken page by page where a page can, unless `tried` (they
    /// were tried as one, and refused: [`Take::Refused`]).
    pub fn record_trace(
        &mut self,
        trace: &MemTrace,
        me: Ref,
        tried: bool,
        (g, hb): (Groups, &impl Fn(&Ref, &Ref) -> bool),
        conflict: &mut impl FnMut(&TraceEntry, Conflict),
    ) {
        let Some(run) = trace.run else {
            return self.record_all(&trace.entries, trace.len, me, (g, hb), conflict);
        };
        let aligned = |r: &TraceRun| r.addr.is_multiple_of(4);
        if trace.len != 4 || !aligned(&run) || !trace.run2.as_ref().is_none_or(aligned) {
            let (buf, n) = expand(trace);
            return self.record_all(&buf[..n], trace.len, me, (g, hb), conflict);
        }
        self.access_run(run, me, tried, (g, hb), conflict);
        if let Some(run2) = trace.run2 {
            self.access_run(run2, me, tried, (g, hb), conflict);
        }
    }

    /// [`RaceShadow::record_trace`] of one run of aligned words (taken page by page where
    /// a page can, unless `tried`: [`RacePage::run`]).
    #[inline(always)]
    fn access_run(
        &mut self,
        run: TraceRun,
        me: Ref,
        tried: bool,
        (g, hb): (Groups, &impl Fn(&Ref, &Ref) -> bool),
        conflict: &mut impl FnMut(&TraceEntry, Conflict),
    ) {
        let first = run.first();
        let mut lanes = run.lanes;
        while lanes != 0 {
            // The lanes from `l` on whose words are in `l`'s page.
            let l = lanes.trailing_zeros();
            let addr = run.addr + 4 * (l - first) as u64;
            let key = addr / RACE_PAGE;
            let upto = l as u64 + (RACE_PAGE - addr % RACE_PAGE) / 4;
            let here = if upto >= 32 {
                lanes
            } else {
                lanes & ((1u32 << upto) - 1)
            };
            lanes &= !here;
            let page = self.page_mut(key);
            let index = (addr / 4) as usize % WORDS;
            page.run(
                (here, l, index),
                me.with_mask(0xf),
                tried,
                (g, hb),
                &mut |lane, c| {
                    let step = 4 * (lane - first) as u64;
                    let e = TraceEntry {
                        lane: lane as u8,
                        addr: run.addr + step,
                        off: run.off + step,
                    };
                    conflict(&e, c)
                },
            );
        }
    }

    /// An estimate of the heap bytes this shadow holds (pages, split words, third refs,
    /// deferred reads).
    pub fn bytes(&self) -> usize {
        let split: usize = self.pages.iter().map(|p| p.bytes.len()).sum();
        let thirds: usize = self.pages.iter().map(|p| p.r3.len()).sum();
        let deferred: usize = self.pages.iter().map(|p| p.deferred.capacity()).sum();
        self.pages.len() * (std::mem::size_of::<RacePage>() + WORDS * std::mem::size_of::<Cell>())
            + split * 4 * std::mem::size_of::<Cell>()
            + thirds * (std::mem::size_of::<Ref>() + 8)
            + deferred * std::mem::size_of::<Deferred>()
    }
}

impl Cell {
    /// A cell holding only `me`'s access (the first to an empty cell, which races with
    /// nothing).
    #[inline(always)]
    fn first(me: Ref) -> Cell {
        if me.is_write() {
            Cell {
                write: me,
                ..Cell::default()
            }
        } else {
            Cell {
                r1: me,
                ..Cell::default()
            }
        }
    }

    /// The cell of one byte (`mask`) of this whole-word cell.
    fn narrowed(&self, mask: u8) -> Cell {
        let n = |r: Ref| if r.wave() == 0 { r } else { r.with_mask(mask) };
        Cell {
            write: n(self.write),
            r1: n(self.r1),
            r2: n(self.r2),
        }
    }

    /// Records `me`'s access given the cell's third read record `r3`; returns the
    /// earlier access it races with, if any, and the new third record when it changes.
    #[inline(always)]
    fn access(
        &mut self,
        me: Ref,
        (g, hb): (Groups, &impl Fn(&Ref, &Ref) -> bool),
        r3: Option<Ref>,
    ) -> (Option<Conflict>, Option<Ref>) {
        if me.is_write() {
            let prior = if self.write.races(&me, g, hb) {
                Some(self.write)
            } else if self.r1.races(&me, g, hb) {
                Some(self.r1)
            } else if self.r2.races(&me, g, hb) {
                Some(self.r2)
            } else {
                r3.filter(|r| r.races(&me, g, hb))
            };
            self.write = me;
            (prior.map(|prior| Conflict { prior }), None)
        } else {
            let prior = self
                .write
                .races(&me, g, hb)
                .then_some(Conflict { prior: self.write });
            let mut third = None;
            if self.r1.wave() != me.wave() && self.r1.wave() != 0 {
                self.r2 = self.r1;
                if g.of(self.r1.wave() - 1) != g.of(me.wave() - 1) {
                    third = Some(self.r1);
                }
            }
            self.r1 = me;
            (prior, third)
        }
    }
}

/// A bit per byte: written in this launch. Once every byte of the window is written
/// (a kernel that clears its shared memory first), checks cost nothing more.
#[derive(Debug, Clone, Default)]
pub(super) struct InitBits {
    pages: PageMap<[u64; (PAGE / 64) as usize]>,
    /// Bytes of the window, and how many of them are written.
    size: u64,
    written: u64,
    /// Every byte below this offset is written: a kernel that writes its window from
    /// the start (clears the part it uses) finds its accesses there written without a
    /// look at the bits.
    solid: u64,
}

impl InitBits {
    /// The bits of a window of `size` bytes, none written.
    pub fn new(size: u64) -> InitBits {
        InitBits {
            pages: PageMap::default(),
            size,
            written: 0,
            solid: 0,
        }
    }

    /// Whether every byte of the window is written.
    fn full(&self) -> bool {
        self.size > 0 && self.written >= self.size
    }

    /// Whether every byte `trace`'s accesses touch is written, as far as the window being
    /// full or the written prefix ([`InitBits::solid`]) tells: then
    /// [`InitBits::access_trace`] of it finds nothing and marks nothing new.
    pub fn written(&self, trace: &MemTrace) -> bool {
        // As `access_trace` counts it: an entry touches at least one byte.
        let len = trace.len.max(1) as u64;
        let below = |r: &TraceRun| {
            let span = 32 - r.lanes.leading_zeros() - r.first();
            r.off.saturating_add(len * span as u64) <= self.solid
        };
        if self.full() {
            return true;
        }
        match trace.run {
            Some(run) => below(&run) && trace.run2.as_ref().is_none_or(below),
            None => (trace.entries.iter()).all(|e| e.off.saturating_add(len) <= self.solid),
        }
    }

    /// For the accesses of one instruction (each entry `len` bytes at its `off`): the
    /// entries that touch a byte not written yet (as a lane mask, and the first one's
    /// address) when `check`, then marks them written when `mark`. The addresses of the
    /// unwritten bytes such entries touch are pushed to `gaps` (only then: a finding is
    /// being made), in no particular order, possibly repeated.
    pub fn access_all(
        &mut self,
        entries: &[TraceEntry],
        len: u32,
        check: bool,
        mark: bool,
        gaps: &mut Vec<u64>,
    ) -> (u32, Option<u64>) {
        let (mut missing, mut first) = (0u32, None);
        if self.full() {
            return (0, None);
        }
        let len = len.max(1) as u64;
        if check && !mark {
            return self.check_all(entries, len, gaps);
        }
        let mut i = 0;
        while i < entries.len() {
            // A run of entries inside one page: it is looked up once.
            let key = entries[i].off / PAGE;
            let in_page = |e: &TraceEntry| {
                e.off / PAGE == key && (e.off.saturating_add(len) - 1) / PAGE == key
            };
            let run = entries[i..].iter().take_while(|e| in_page(e)).count();
            if run == 0 {
                // Across a page boundary: byte ranges page by page.
                let e = &entries[i];
                if check && !self.all_set(e.off, len) {
                    missing |= 1u32.checked_shl(e.lane as u32).unwrap_or(0);
                    first.get_or_insert(e.addr);
                    self.gaps_of(e, len, gaps);
                }
                if mark {
                    self.set(e.off, len);
                }
                i += 1;
                continue;
            }
            let run = &entries[i..i + run];
            i += run.len();
            if self.contiguous(key, run, len, check, mark) {
                continue;
            }
            let mut added = 0;
            if mark {
                let page = Arc::make_mut(
                    self.pages
                        .entry(key)
                        .or_insert_with(|| Arc::new([0; (PAGE / 64) as usize])),
                );
                for e in run {
                    let mut all = true;
                    for_bits(e.off % PAGE, len, |word, bits| {
                        let old = page[word];
                        all &= old & bits == bits;
                        added += (bits & !old).count_ones() as u64;
                        page[word] = old | bits;
                        if check && old & bits != bits {
                            push_gaps(gaps, e, key, word, bits & !old);
                        }
                    });
                    if check && !all {
                        missing |= 1u32.checked_shl(e.lane as u32).unwrap_or(0);
                        first.get_or_insert(e.addr);
                    }
                }
            }
            self.written += added;
            let solid = self.solid;
            if (run.iter()).any(|e| e.off <= solid && e.off.saturating_add(len) > solid) {
                self.grow_solid();
            }
        }
        (missing, first)
    }

    /// [`InitBits::access_all`] when it only checks (a load), entry by entry: the page
    /// looked up again only where an entry's page differs from the last one's, and an
    /// access within one bitmap word (64 bytes) tested at once. A load of a column (lanes
    /// a row apart, as a transpose's) makes runs of one entry, each of which cost a
    /// search for its run and a hash lookup.
    fn check_all(
        &self,
        entries: &[TraceEntry],
        len: u64,
        gaps: &mut Vec<u64>,
    ) -> (u32, Option<u64>) {
        let (mut missing, mut first) = (0u32, None);
        let mut last: Option<(u64, Option<&[u64; (PAGE / 64) as usize]>)> = None;
        for e in entries {
            let key = e.off / PAGE;
            let end = e.off.saturating_add(len);
            if (end - 1) / PAGE != key {
                // Across a page boundary: byte ranges page by page.
                if !self.all_set(e.off, len) {
                    missing |= 1u32.checked_shl(e.lane as u32).unwrap_or(0);
                    first.get_or_insert(e.addr);
                    self.gaps_of(e, len, gaps);
                }
                continue;
            }
            let page = match last {
                Some((k, page)) if k == key => page,
                _ => {
                    let page = self.pages.get(&key).map(|p| &**p);
                    last = Some((key, page));
                    page
                }
            };
            let bit = e.off % PAGE;
            let all = match page {
                None => false,
                Some(p) if bit % 64 + len <= 64 => {
                    let bits = (u64::MAX >> (64 - len)) << (bit % 64);
                    p[(bit / 64) as usize] & bits == bits
                }
                Some(p) => {
                    let mut all = true;
                    for_bits(bit, len, |word, bits| all &= p[word] & bits == bits);
                    all
                }
            };
            if !all {
                missing |= 1u32.checked_shl(e.lane as u32).unwrap_or(0);
                first.get_or_insert(e.addr);
                match page {
                    Some(p) => for_bits(bit, len, |word, bits| {
                        push_gaps(gaps, e, key, word, bits & !p[word]);
                    }),
                    None => gaps.extend((0..len).map(|i| e.addr.wrapping_add(i))),
                }
            }
        }
        (missing, first)
    }

    /// [`InitBits::access_all`] of an instruction's trace: its entries, or its runs in
    /// order (each with lanes without a gap between them, in one page: one byte range, as
    /// [`InitBits::contiguous`] takes consecutive entries; otherwise expanded).
    pub fn access_trace(
        &mut self,
        trace: &MemTrace,
        check: bool,
        mark: bool,
        gaps: &mut Vec<u64>,
    ) -> (u32, Option<u64>) {
        let Some(run) = trace.run else {
            return self.access_all(&trace.entries, trace.len, check, mark, gaps);
        };
        if self.full() {
            return (0, None);
        }
        let len = trace.len.max(1) as u64;
        // A run that does not pass changes nothing; one that passed before it found every
        // byte written (or only marked them): taking its lanes again finds the same.
        let mut whole = |run: TraceRun| {
            let n = run.lanes.count_ones() as u64;
            let gapless = n == (32 - run.lanes.leading_zeros() - run.first()) as u64;
            let end = run.off.saturating_add(len * n);
            let one_page = run.off / PAGE == (end - 1) / PAGE;
            let pass = gapless && one_page && (!check || self.all_set(run.off, len * n));
            // (Bytes the check found written need no marking.)
            if pass && mark && !check {
                self.set(run.off, len * n);
            }
            pass
        };
        if whole(run) && trace.run2.is_none_or(&mut whole) {
            return (0, None);
        }
        let (buf, n) = expand(trace);
        self.access_all(&buf[..n], trace.len, check, mark, gaps)
    }

    /// The unwritten bytes of entry `e` (`len` bytes, maybe across pages), to `gaps`: for
    /// a finding only.
    #[cold]
    fn gaps_of(&self, e: &TraceEntry, len: u64, gaps: &mut Vec<u64>) {
        for i in 0..len {
            if !self.all_set(e.off.saturating_add(i), 1) {
                gaps.push(e.addr.wrapping_add(i));
            }
        }
    }

    /// A `run` of entries in page `key` at consecutive offsets (lanes storing or loading a
    /// row): checked as one byte range when `check`, then marked when `mark`. Returns
    /// false, having changed nothing, when the run is not consecutive or (if `check`) some
    /// byte is unwritten: the entries then go one by one, to name the lanes.
    #[inline]
    fn contiguous(
        &mut self,
        key: u64,
        run: &[TraceEntry],
        len: u64,
        check: bool,
        mark: bool,
    ) -> bool {
        let Some(first) = run.first() else {
            return true;
        };
        if run.len() < 2 || !run.windows(2).all(|p| p[1].off == p[0].off + len) {
            return false;
        }
        let (bit, n) = (first.off % PAGE, len * run.len() as u64);
        if check {
            let Some(page) = self.pages.get(&key) else {
                return false;
            };
            let mut all = true;
            for_bits(bit, n, |word, bits| all &= page[word] & bits == bits);
            if !all {
                return false;
            }
        }
        // (Bytes the check found written need no marking.)
        if mark && !check {
            let page = Arc::make_mut(
                self.pages
                    .entry(key)
                    .or_insert_with(|| Arc::new([0; (PAGE / 64) as usize])),
            );
            let mut added = 0;
            for_bits(bit, n, |word, bits| {
                added += (bits & !page[word]).count_ones() as u64;
                page[word] |= bits;
            });
            self.written += added;
            self.marked(first.off, first.off + n);
        }
        true
    }

    /// Whether every byte of `[off, off + len)` was written.
    fn all_set(&self, off: u64, len: u64) -> bool {
        let mut b = off;
        let end = off.saturating_add(len);
        if end <= self.solid {
            return true;
        }
        while b < end {
            let (key, bit) = (b / PAGE, b % PAGE);
            let n = (end - b).min(PAGE - bit);
            let Some(page) = self.pages.get(&key) else {
                return false;
            };
            let mut all = true;
            for_bits(bit, n, |word, bits| all &= page[word] & bits == bits);
            if !all {
                return false;
            }
            b += n;
        }
        true
    }

    /// Marks `[off, off + len)` written (also a debugger write).
    pub fn set(&mut self, off: u64, len: u64) {
        let mut b = off;
        let end = off.saturating_add(len);
        while b < end {
            let (key, bit) = (b / PAGE, b % PAGE);
            let n = (end - b).min(PAGE - bit);
            let page = Arc::make_mut(
                self.pages
                    .entry(key)
                    .or_insert_with(|| Arc::new([0; (PAGE / 64) as usize])),
            );
            let mut added = 0;
            for_bits(bit, n, |word, bits| {
                added += (bits & !page[word]).count_ones() as u64;
                page[word] |= bits;
            });
            self.written += added;
            b += n;
        }
        self.marked(off, end);
    }

    /// After bytes `[off, end)` were marked written: moves [`InitBits::solid`] past them
    /// and the written bytes after them when they reach it.
    #[inline(always)]
    fn marked(&mut self, off: u64, end: u64) {
        if off <= self.solid && end > self.solid {
            self.grow_solid();
        }
    }

    /// Moves [`InitBits::solid`] up to the first unwritten byte.
    #[cold]
    fn grow_solid(&mut self) {
        loop {
            let (key, bit) = (self.solid / PAGE, self.solid % PAGE);
            let Some(page) = self.pages.get(&key) else {
                return;
            };
            // The written bytes from `solid` on in its bitmap word.
            let left = 64 - bit % 64;
            let run = (!(page[(bit / 64) as usize] >> (bit % 64))).trailing_zeros() as u64;
            self.solid += run.min(left);
            if run < left {
                return;
            }
        }
    }

    /// The heap bytes of the bitmap pages: 512 per 4 KiB page of the window touched.
    pub fn bytes(&self) -> usize {
        self.pages.len() * (PAGE / 8) as usize
    }
}

/// A trace's accesses as entries on the stack (at most one per lane), and how many.
pub(super) fn expand(trace: &MemTrace) -> ([TraceEntry; LANES], usize) {
    let mut buf = [TraceEntry::default(); LANES];
    let mut n = 0;
    for (b, e) in buf.iter_mut().zip(trace.accesses()) {
        *b = e;
        n += 1;
    }
    (buf, n)
}

/// The bytes of entry `e` whose bits are set in `miss`, bit-word `word` of page `key` of an
/// [`InitBits`], as addresses (the entry's address plus their offset past its own), to
/// `gaps`: for a finding only.
#[cold]
fn push_gaps(gaps: &mut Vec<u64>, e: &TraceEntry, key: u64, word: usize, miss: u64) {
    let base = key * PAGE + word as u64 * 64;
    let mut m = miss;
    while m != 0 {
        let off = base + u64::from(m.trailing_zeros());
        gaps.push(e.addr.wrapping_add(off.wrapping_sub(e.off)));
        m &= m - 1;
    }
}

/// Calls `f(word, bits)` for the 64-bit words of a page's bitmap that cover bytes
/// `[bit, bit + n)` of the page, with the bits of those bytes.
#[inline]
fn for_bits(bit: u64, n: u64, mut f: impl FnMut(usize, u64)) {
    let (mut b, end) = (bit, bit + n);
    while b < end {
        let k = (end - b).min(64 - b % 64);
        let bits = if k == 64 {
            u64::MAX
        } else {
            ((1u64 << k) - 1) << (b % 64)
        };
        f((b / 64) as usize, bits);
        b += k;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A xorshift generator from `seed` (not 0): each call a number below its argument.
    fn below(mut seed: u64) -> impl FnMut(u64) -> u64 {
        move |n| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        }
    }

    fn entry(lane: u8, addr: u64) -> TraceEntry {
        TraceEntry {
            lane,
            addr,
            off: addr,
        }
    }

    /// Races `me`'s accesses (`len` bytes at each address, lanes 0, 1, ...) find, as
    /// (lane, address, earlier wave id).
    fn races(shadow: &mut RaceShadow, addrs: &[u64], len: u32, me: Ref) -> Vec<(u8, u64, u32)> {
        let entries: Vec<TraceEntry> = (0..)
            .zip(addrs)
            .map(|(lane, &addr)| entry(lane, addr))
            .collect();
        let mut found = Vec::new();
        // One wave per workgroup, no atomics: different waves never synchronise.
        let unordered = |_: &Ref, _: &Ref| false;
        shadow.access_all(
            &entries,
            len,
            me,
            (Groups::new(1), &unordered),
            &mut |e, c| {
                found.push((e.lane, e.addr, c.prior.wave() - 1));
            },
        );
        found
    }

    #[test]
    fn page_hasher_hashes_narrow_keys_in_one_step() {
        let hash = |f: &dyn Fn(&mut PageHasher)| {
            let mut h = PageHasher::default();
            f(&mut h);
            h.finish()
        };
        for n in [0u16, 1, 5, 0x1234, u16::MAX] {
            let wide = hash(&|h| h.write_u64(n.into()));
            assert_eq!(hash(&|h| h.write_u16(n)), wide);
            assert_eq!(hash(&|h| h.write_u32(n.into())), wide);
        }
        let wide = hash(&|h| h.write_u64(0x8765_4321));
        assert_eq!(hash(&|h| h.write_u32(0x8765_4321)), wide);
    }

    #[test]
    fn word_runs_find_races_on_both_sides_of_a_page_and_a_split_word() {
        let mut s = RaceShadow::default();
        let write = |wave| Ref::new(wave, 0, 0x40, MemAccess::Write);
        // Wave 1 writes a byte of word 2 (splitting it), and words 8 and 300 (page 1).
        assert!(races(&mut s, &[9], 1, write(1)).is_empty());
        assert!(races(&mut s, &[32, 1200], 4, write(1)).is_empty());
        // Wave 2 writes whole words: a run in page 0 (its words path stops at the split
        // word, which goes byte by byte), an unaligned word, then page 1.
        let found = races(&mut s, &[0, 8, 32, 1002, 1200], 4, write(2));
        assert_eq!(found, vec![(1, 8, 1), (2, 32, 1), (4, 1200, 1)]);
        // Reads by wave 3 race with wave 2's writes, in a page without split words too.
        let read = Ref::new(3, 0, 0x80, MemAccess::Read);
        let found = races(&mut s, &[1200, 1204, 0], 4, read);
        assert_eq!(found, vec![(0, 1200, 2), (2, 0, 2)]);
        // A wave's write after its own read does not race.
        assert!(races(&mut s, &[1204], 4, write(3)).is_empty());
    }

    #[test]
    fn the_run_loop_finds_what_the_general_path_finds() {
        // Three shadows see the same accesses: in `general` a split word (255, never
        // touched again) sends every run of page 0 through `RacePage::access`, in `runs`
        // they go through `RacePage::words`, in `traced` as one or two trace runs through
        // `RacePage::run` (whose pages' holders may answer for every cell). Two
        // workgroups of four waves, barrier counts 0-2, reads, writes and atomics, runs
        // of 1-8 elements, a second run of 0-8 anywhere (meeting the first, or not), of
        // words or (one access in four, word by word through `RacePage::access` in every
        // shadow) of 8 bytes: the same races each time. Fresh shadows every 12 accesses:
        // a page's first third read (a read by another workgroup) sends the rest of its
        // runs to the general path. Rounds of fewer waves (one, two of one workgroup, two
        // of two) keep the pages' holders narrow for longer.
        let g = Groups::new(4);
        let unordered = |_: &Ref, _: &Ref| false;
        let mut next = below(0x2545_f491_4f6c_dd1d);
        let mut found = 0;
        for round in 0..800 {
            let [mut general, mut runs, mut traced] = [(); 3].map(|_| RaceShadow::default());
            let split = [entry(0, 1020)];
            let w = Ref::new(0, 0, 0x10, MemAccess::Write);
            general.access_all(&split, 1, w, (g, &unordered), &mut |_, _| {});
            let waves = [(8, 0), (1, 0), (2, 0), (2, 3)][round % 4];
            for step in 0..12 {
                let access = [MemAccess::Read, MemAccess::Write, MemAccess::Atomic];
                let access = access[next(3) as usize];
                let wave = next(waves.0) as u32 * (1 + waves.1);
                let me = Ref::new(wave, next(3) as u32, 4 * step, access);
                let (start, n) = (next(12), 1 + next(8));
                let (start2, n2) = (next(40), next(9));
                let len = if next(4) == 0 { 8 } else { 4 };
                let first = TraceRun {
                    lanes: (1u32 << n) - 1,
                    addr: len * start,
                    off: len * start,
                };
                let second = (n2 > 0).then_some(TraceRun {
                    lanes: ((1u32 << n2) - 1) << n,
                    addr: len * start2,
                    off: len * start2,
                });
                let trace = MemTrace {
                    len: len as u32,
                    run: Some(first),
                    run2: second,
                    ..MemTrace::default()
                };
                let entries: Vec<TraceEntry> = trace.accesses().collect();
                let mut seen = [Vec::new(), Vec::new(), Vec::new()];
                for (k, shadow) in [&mut general, &mut runs].into_iter().enumerate() {
                    shadow.access_all(&entries, len as u32, me, (g, &unordered), &mut |e, c| {
                        seen[k].push((e.lane, e.addr, c.prior));
                    });
                }
                traced.access_trace(&trace, me, (g, &unordered), &mut |e, c| {
                    seen[2].push((e.lane, e.addr, c.prior));
                });
                assert_eq!(seen[0], seen[1], "round {round}, step {step}");
                assert_eq!(seen[0], seen[2], "round {round}, step {step}");
                found += seen[0].len();
            }
        }
        assert!(found > 100, "{found} races: too few to compare the paths");
    }

    #[test]
    fn blocks_held_by_one_record_per_field_find_what_cells_find() {
        // `blocks` sees whole waves' runs on aligned blocks of 32 words as one trace run
        // (held by a block's records while it can be); `cells` sees the same accesses as
        // entries, which never make a block uniform. Between them, accesses that write
        // blocks back to their cells: runs of 1-32 lanes from any word (across blocks),
        // bytes (splitting words), 8-byte accesses and gathers. Two workgroups of four waves,
        // barrier counts 0-1, reads, writes and atomics over two pages (16 blocks): the
        // same races each time. Rounds of one or two waves keep the blocks uniform longer.
        let g = Groups::new(4);
        let unordered = |_: &Ref, _: &Ref| false;
        let mut next = below(0x9e37_79b9_7f4a_7c15);
        let (mut found, mut held) = (0, 0);
        for round in 0..600 {
            let [mut cells, mut blocks] = [(); 2].map(|_| RaceShadow::default());
            let waves = [8, 1, 2, 5][round % 4];
            for step in 0..24 {
                let access = [MemAccess::Read, MemAccess::Write, MemAccess::Atomic];
                let access = access[next(3) as usize];
                let wave = next(waves) as u32;
                let me = Ref::new(wave, next(2) as u32, 4 * step, access);
                let (len, run) = match next(8) {
                    0 => (1, (u32::MAX >> next(32), 1 + next(2047))),
                    1 => (8, ((1u32 << (1 + next(8))) - 1, 8 * next(250))),
                    2 | 3 => (4, (u32::MAX << next(32), 4 * next(480))),
                    _ => (4, (u32::MAX, 128 * next(16))),
                };
                let trace = MemTrace {
                    len,
                    run: Some(TraceRun {
                        lanes: run.0,
                        addr: run.1,
                        off: run.1,
                    }),
                    ..MemTrace::default()
                };
                let mut entries: Vec<TraceEntry> = trace.accesses().collect();
                // One access in eight: words anywhere, as entries (a gather), for both.
                let scattered = next(8) == 0;
                if scattered {
                    for e in &mut entries {
                        e.addr = 4 * next(512);
                    }
                }
                let mut seen = [Vec::new(), Vec::new()];
                cells.access_all(&entries, len, me, (g, &unordered), &mut |e, c| {
                    seen[0].push((e.lane, e.addr, c.prior));
                });
                let mut conflict = |e: &TraceEntry, c: Conflict| {
                    seen[1].push((e.lane, e.addr, c.prior));
                };
                if scattered {
                    blocks.access_all(&entries, len, me, (g, &unordered), &mut conflict);
                } else {
                    blocks.access_trace(&trace, me, (g, &unordered), &mut conflict);
                }
                assert_eq!(seen[0], seen[1], "round {round}, step {step}");
                found += seen[0].len();
                held += blocks
                    .pages
                    .iter()
                    .map(|p| p.uniform.count_ones() as usize)
                    .sum::<usize>();
            }
        }
        assert!(found > 1000, "{found} races: too few to compare the paths");
        assert!(held > 5_000, "{held} blocks held by records: too few");
    }

    #[test]
    fn reused_race_pages_start_clean_and_snapshots_keep_theirs() {
        let write = |wave| Ref::new(wave, 0, 0x40, MemAccess::Write);
        let words: Vec<u64> = (0..64).map(|w| 4 * w).collect();
        let mut a = RaceShadow::default();
        assert!(races(&mut a, &words, 4, write(1)).is_empty());
        assert!(races(&mut a, &[9, 2000], 1, write(1)).is_empty());
        // A snapshot shares the pages; dropping the original must not hand them out.
        let snapshot = a.clone();
        drop(a);
        let mut b = RaceShadow::default();
        assert!(races(&mut b, &[0, 4, 9, 2000], 4, write(2)).is_empty());
        let mut kept = snapshot.clone();
        let found = races(&mut kept, &[0, 9], 1, write(2));
        assert_eq!(found, vec![(0, 0, 1), (1, 9, 1)]);
        // Pages of dropped shadows (back in the thread's spare list) start with no
        // history: the next shadow's accesses find no race with the dropped ones.
        drop((b, kept, snapshot));
        let mut c = RaceShadow::default();
        assert!(races(&mut c, &words, 4, write(3)).is_empty());
        assert!(races(&mut c, &[9, 2000], 1, write(3)).is_empty());
        let found = races(&mut c, &[0, 2000], 4, write(4));
        assert_eq!(found, vec![(0, 0, 3), (1, 2000, 3)]);
    }

    /// Every record `shadow` holds, page by page (deferred reads written, blocks written
    /// back to their cells first): each live cell's, each split word's, each third read.
    fn records(shadow: &mut RaceShadow) -> Vec<(u64, usize, Vec<Ref>)> {
        let mut keys: Vec<u64> = shadow.places.keys().copied().collect();
        keys.sort_unstable();
        let mut out = Vec::new();
        for key in keys {
            let page = shadow.page_mut(key);
            page.flush();
            for b in 0..BLOCKS {
                page.expand(b);
            }
            for j in (0..WORDS).filter(|&j| page.live[j / 64] >> (j % 64) & 1 != 0) {
                let c = page.words.get(j);
                out.push((key, j, vec![c.write, c.r1, c.r2]));
            }
            let mut split: Vec<_> = page.bytes.iter().collect();
            split.sort_unstable_by_key(|(&w, _)| w);
            for (&w, cells) in split {
                let refs = cells.iter().flat_map(|c| [c.write, c.r1, c.r2]).collect();
                out.push((key, WORDS + w as usize, refs));
            }
            let mut thirds: Vec<_> = page.r3.iter().collect();
            thirds.sort_unstable_by_key(|(&k, _)| k);
            for (&k, &r) in thirds {
                out.push((key, 2 * WORDS + k as usize, vec![r]));
            }
        }
        out
    }

    #[test]
    fn deferred_reads_find_what_reads_recorded_at_once_find() {
        // `deferred` sees each access as its trace (runs, which a page may defer when they
        // are reads: `RacePage::defer`); `at_once` sees the same accesses as entries,
        // which the pages record at once. Mostly reads and atomics by 3, 8 or 16 waves of
        // workgroup 0 on one page (more waves than `RacePage::flush_deferred` keeps sets
        // for, or fewer), so that long logs build up (past `DEFERRED`), with a
        // plain write, a barrier, another workgroup's read (a third read record) or a
        // split word now and then, each making the page write its log; runs of 1-32
        // lanes from any word, and rotations round the page's end (two runs, one deferred
        // read). The same races each time, the same records at the end, and the same
        // races after.
        let g = Groups::new(16);
        let unordered = |_: &Ref, _: &Ref| false;
        let mut next = below(0x5851_f42d_4c95_7f2d);
        let (mut found, mut longest, mut rotations, mut gaps) = (0, 0, 0, 0);
        for round in 0..160 {
            let [mut at_once, mut deferred] = [(); 2].map(|_| RaceShadow::default());
            let mut epoch = 0;
            // Waves 0-2, 0-7, 0-15, or 0, 1, 8 and 9 (two pairs the flush's per-wave sets
            // would put in one set).
            let waves = [3, 8, 16, 4][round % 4];
            let pick = |w: u64| match w as u32 {
                w if waves == 4 => w % 2 + 8 * (w / 2),
                w => w,
            };
            for step in 0..400 {
                let roll = next(1000);
                let (wave, access) = match roll {
                    0..=9 => (pick(next(waves)), MemAccess::Write),
                    10..=14 => (16 + next(4) as u32, MemAccess::Read),
                    _ if roll.is_multiple_of(2) => (pick(next(waves)), MemAccess::Atomic),
                    _ => (pick(next(waves)), MemAccess::Read),
                };
                if next(150) == 0 {
                    epoch += 1;
                }
                let me = Ref::new(wave, epoch, 4 * step, access);
                let (n, start) = (1 + next(32), next(256));
                let (len, trace) = if next(200) == 0 {
                    // A byte: splits its word.
                    (1, (1, 4 * start + next(4), None))
                } else if start + n > 256 && round % 2 == 0 {
                    // A rotation: lanes 0.. to the page's end, the rest from its start.
                    let n1 = 256 - start;
                    let lanes2 = ((1u64 << n) - 1) as u32 & !((1u32 << n1) - 1);
                    rotations += 1;
                    (4, ((1u32 << n1) - 1, 4 * start, Some((lanes2, 0))))
                } else {
                    let start = start.min(256 - n);
                    let mut lanes = ((1u64 << n) - 1) as u32;
                    if n > 2 && next(60) == 0 {
                        // A gap: not deferred (and so the log is written: not often).
                        lanes &= !(1 << (1 + next(n - 2)));
                        gaps += 1;
                    }
                    (4, (lanes, 4 * start, None))
                };
                let trace = MemTrace {
                    len,
                    run: Some(TraceRun {
                        lanes: trace.0,
                        addr: trace.1,
                        off: trace.1,
                    }),
                    run2: trace.2.map(|(lanes, addr)| TraceRun {
                        lanes,
                        addr,
                        off: addr,
                    }),
                    ..MemTrace::default()
                };
                let entries: Vec<TraceEntry> = trace.accesses().collect();
                let mut seen = [Vec::new(), Vec::new()];
                at_once.access_all(&entries, len, me, (g, &unordered), &mut |e, c| {
                    seen[0].push((e.lane, e.addr, c.prior));
                });
                deferred.access_trace(&trace, me, (g, &unordered), &mut |e, c| {
                    seen[1].push((e.lane, e.addr, c.prior));
                });
                assert_eq!(seen[0], seen[1], "round {round}, step {step}");
                found += seen[0].len();
                let log = deferred.pages.iter().map(|p| p.deferred.len());
                longest = longest.max(log.max().unwrap_or(0));
            }
            // The same records in every cell, split word and third read.
            assert_eq!(
                records(&mut at_once),
                records(&mut deferred),
                "round {round}"
            );
            // What is still deferred is found by every word's next write.
            let me = Ref::new(3, epoch, 0x999, MemAccess::Write);
            let entries: Vec<TraceEntry> = (0..256).map(|w| entry(0, 4 * w)).collect();
            let mut seen = [Vec::new(), Vec::new()];
            for (k, shadow) in [&mut at_once, &mut deferred].into_iter().enumerate() {
                shadow.access_all(&entries, 4, me, (g, &unordered), &mut |e, c| {
                    seen[k].push((e.addr, c.prior));
                });
            }
            assert_eq!(seen[0], seen[1], "round {round}, the last writes");
        }
        assert!(found > 1000, "{found} races: too few to compare the paths");
        assert!(
            longest >= DEFERRED - 1,
            "the longest log held {longest} reads"
        );
        assert!(rotations > 100, "{rotations} rotations");
        assert!(gaps > 500, "{gaps} runs with a gap");
    }

    #[test]
    fn gathers_on_race_pages_find_what_the_general_path_finds() {
        // `gathered` sees gathers (words of page 0 in any order, some twice) on a page
        // whose every word is live (or, one round in two, words 0-99), so that those its
        // holders clear take the one-pass loop (`Cells::take_all_in_place`, which makes
        // the words not live yet live); in `general` a split word (255, never touched
        // again) sends every access through `RacePage::access`. Rounds of the filling
        // wave, of workgroup 0's reads and atomics (a write now and then) one barrier
        // count after the fill, and of any wave of two workgroups at barrier counts 0-2
        // with any access. The same races at each step, the same records in every other
        // word at the end of a round, and the same races for a last write to every word
        // by workgroup 1.
        let g = Groups::new(4);
        let unordered = |_: &Ref, _: &Ref| false;
        let mut next = below(0x2d35_8dcc_aa6c_78a5);
        let (mut found, mut cleared) = (0, 0);
        for round in 0..300 {
            let [mut general, mut gathered] = [(); 2].map(|_| RaceShadow::default());
            let fill = Ref::new(0, 0, 0x10, MemAccess::Write);
            let all: Vec<TraceEntry> = (0..255).map(|w| entry(0, 4 * w)).collect();
            general.access_all(&[entry(0, 1021)], 1, fill, (g, &unordered), &mut |_, _| {});
            gathered.access_all(&[entry(0, 1020)], 4, fill, (g, &unordered), &mut |_, _| {});
            // Every word filled, or (one round in two) words 0-99 only: the rest are made
            // live by the gathers.
            let filled = if round % 2 == 0 { 255 } else { 100 };
            for shadow in [&mut general, &mut gathered] {
                let fill_words = &all[..filled];
                shadow.access_all(fill_words, 4, fill, (g, &unordered), &mut |_, _| {});
            }
            for step in 0..24 {
                let access = [MemAccess::Read, MemAccess::Atomic, MemAccess::Write];
                let (wave, epoch, access) = match round % 3 {
                    // The filling wave: its own records never race with it.
                    0 => (0, next(2) as u32, access[next(3) as usize]),
                    // Workgroup 0 after a barrier: reads and atomics, a write now and then.
                    1 => (
                        next(4) as u32,
                        1,
                        access[next(2) as usize + usize::from(next(30) == 0)],
                    ),
                    _ => (next(8) as u32, next(3) as u32, access[next(3) as usize]),
                };
                let me = Ref::new(wave, epoch, 4 * step, access);
                let mut lanes: Vec<u8> = (0..32).filter(|_| next(4) != 0).collect();
                // Lanes in any order (a gather's entries need not ascend).
                for k in (1..lanes.len()).rev() {
                    lanes.swap(k, next(k as u64 + 1) as usize);
                }
                let entries: Vec<TraceEntry> =
                    lanes.iter().map(|&l| entry(l, 4 * next(255))).collect();
                let page = gathered.page_mut(0);
                let mine = Mine::of(me, g);
                cleared += usize::from(page.holders.in_place(mine) && page.r3.is_empty());
                let mut seen = [Vec::new(), Vec::new()];
                for (k, shadow) in [&mut general, &mut gathered].into_iter().enumerate() {
                    shadow.access_all(&entries, 4, me, (g, &unordered), &mut |e, c| {
                        seen[k].push((e.lane, e.addr, c.prior));
                    });
                }
                assert_eq!(seen[0], seen[1], "round {round}, step {step}");
                found += seen[0].len();
            }
            let words = |shadow: &mut RaceShadow| {
                let mut r = records(shadow);
                r.retain(|&(_, j, _)| j < 255);
                r
            };
            assert_eq!(words(&mut general), words(&mut gathered), "round {round}");
            let last = Ref::new(5, 0, 0x999, MemAccess::Write);
            let mut seen = [Vec::new(), Vec::new()];
            for (k, shadow) in [&mut general, &mut gathered].into_iter().enumerate() {
                shadow.access_all(&all, 4, last, (g, &unordered), &mut |e, c| {
                    seen[k].push((e.addr, c.prior));
                });
            }
            assert_eq!(seen[0], seen[1], "round {round}, the last writes");
            found += seen[0].len();
        }
        assert!(found > 1000, "{found} races: too few to compare the paths");
        assert!(
            cleared > 2000,
            "{cleared} gathers the holders cleared: too few"
        );
    }

    #[test]
    fn a_gather_taken_in_one_pass_is_counted_in_its_pages_holders() {
        // A gather the page takes in one pass (its holders clear it: here, none) must
        // count its wave in them, so that another wave's later access to those words is
        // checked against it, not taken in one pass too.
        let unordered = |_: &Ref, _: &Ref| false;
        let gather: Vec<TraceEntry> = (0..)
            .zip([12u64, 4, 40, 4])
            .map(|(lane, addr)| entry(lane, addr))
            .collect();
        for first in [MemAccess::Atomic, MemAccess::Read, MemAccess::Write] {
            let mut shadow = RaceShadow::default();
            let me = Ref::new(1, 0, 0x40, first);
            let g = Groups::new(1);
            shadow.access_all(&gather, 4, me, (g, &unordered), &mut |e, _| {
                panic!("{first:?}: a race at {:#x} with nothing before it", e.addr)
            });
            let write = Ref::new(2, 0, 0x80, MemAccess::Write);
            let found = races(&mut shadow, &[40, 12], 4, write);
            assert_eq!(found, vec![(0, 40, 1), (1, 12, 1)], "{first:?}");
        }
    }

    #[test]
    fn pages_sharing_a_recent_set_keep_their_own_records() {
        // Keys whose pages share a set of `recent` (a look-up of one replaces the other's
        // entry), looked up in turn, each written by its own wave: each word races only
        // with its own page's writer. Then a clone, written on both sides, as the pages
        // it shares are copied.
        let keys: Vec<u64> = (0..)
            .filter(|&k| recent_set(k) == recent_set(0))
            .take(3)
            .collect();
        let write = |wave| Ref::new(wave, 0, 0x40, MemAccess::Write);
        let mut a = RaceShadow::default();
        for (w, &key) in (1..).zip(&keys) {
            assert!(races(&mut a, &[key * RACE_PAGE + 8], 4, write(w)).is_empty());
        }
        for round in 0..2 {
            for (w, &key) in (1..).zip(&keys) {
                let at = key * RACE_PAGE + 8;
                let me = write(10 + round * 10 + w);
                let prior = if round == 0 { w } else { 10 + w };
                assert_eq!(races(&mut a, &[at], 4, me), vec![(0, at, prior)], "{key}");
            }
        }
        let mut b = a.clone();
        let at = keys[1] * RACE_PAGE + 8;
        assert_eq!(races(&mut b, &[at], 4, write(40)), vec![(0, at, 22)]);
        assert_eq!(races(&mut a, &[at], 4, write(41)), vec![(0, at, 22)]);
        assert_eq!(races(&mut b, &[at], 4, write(42)), vec![(0, at, 40)]);
        assert_eq!(a.pages.len(), keys.len());
    }

    #[test]
    fn a_clone_and_its_original_write_their_own_pages() {
        // Pages a shadow made its own (stamped with its owner's stamp) are shared by a
        // clone; a write on either side afterwards must copy them, again after a second
        // clone (whose original's pages were stamped with the stamp after the first).
        let write = |wave| Ref::new(wave, 0, 0x40, MemAccess::Write);
        let mut a = RaceShadow::default();
        assert!(races(&mut a, &[0, 4, 1200], 4, write(1)).is_empty());
        let mut b = a.clone();
        // Both sides write the same words: each races only with wave 1, never with what
        // the other side wrote after the clone.
        assert_eq!(races(&mut a, &[0], 4, write(2)), vec![(0, 0, 1)]);
        assert_eq!(
            races(&mut b, &[0, 1200], 4, write(3)),
            vec![(0, 0, 1), (1, 1200, 1)]
        );
        assert_eq!(
            races(&mut a, &[0, 1200], 4, write(4)),
            vec![(0, 0, 2), (1, 1200, 1)]
        );
        let mut c = a.clone();
        assert_eq!(races(&mut a, &[4], 4, write(5)), vec![(0, 4, 1)]);
        assert_eq!(
            races(&mut c, &[0, 4], 4, write(6)),
            vec![(0, 0, 4), (1, 4, 1)]
        );
        assert_eq!(
            races(&mut b, &[0, 4], 4, write(7)),
            vec![(0, 0, 3), (1, 4, 1)]
        );
        assert_eq!(races(&mut a, &[4], 4, write(8)), vec![(0, 4, 5)]);
    }

    #[test]
    fn consecutive_lanes_name_exactly_the_lanes_reading_unwritten_bytes() {
        let mut bits = InitBits::new(8192);
        let row: Vec<TraceEntry> = (0..8).map(|l| entry(l, 4 * l as u64)).collect();
        // Nothing written: every lane of the row reads unwritten bytes.
        assert_eq!(
            bits.access_all(&row, 4, true, false, &mut Vec::new()),
            (0xff, Some(0))
        );
        // Lanes 0-2 and 4-7 store (a consecutive run, then one with a gap).
        assert_eq!(
            bits.access_all(&row[..3], 4, false, true, &mut Vec::new()),
            (0, None)
        );
        assert_eq!(
            bits.access_all(&row[4..], 4, false, true, &mut Vec::new()),
            (0, None)
        );
        assert_eq!(
            bits.access_all(&row, 4, true, false, &mut Vec::new()),
            (1 << 3, Some(12))
        );
        // One byte of lane 3's word written: still unwritten bytes.
        bits.set(12, 1);
        let mut gaps = Vec::new();
        assert_eq!(
            bits.access_all(&row, 4, true, false, &mut gaps),
            (1 << 3, Some(12))
        );
        // Its unwritten bytes are named, not the written one.
        assert_eq!(gaps, vec![13, 14, 15]);
        bits.set(13, 3);
        assert_eq!(
            bits.access_all(&row, 4, true, false, &mut Vec::new()),
            (0, None)
        );
        // A run across the 4 KiB page boundary, and an atomic (check, then mark).
        let across: Vec<TraceEntry> = (0..4).map(|l| entry(l, 4088 + 4 * l as u64)).collect();
        assert_eq!(
            bits.access_all(&across, 4, true, true, &mut Vec::new()),
            (0xf, Some(4088))
        );
        assert_eq!(
            bits.access_all(&across, 4, true, true, &mut Vec::new()),
            (0, None)
        );
    }

    #[test]
    fn loads_find_exactly_the_unwritten_bytes_of_each_entry() {
        // Loads of 1-16 bytes by lanes at scattered offsets (aligned or not, within a
        // bitmap word or across one, across the 4 KiB page boundary, in a page never
        // written) against a byte-by-byte model of the written bytes.
        let mut next = below(0x2545_f491_4f6c_dd1d);
        let mut missed = 0;
        for round in 0..300 {
            let mut bits = InitBits::new(3 * PAGE);
            let mut model = vec![false; 3 * PAGE as usize];
            for _ in 0..6 {
                let (off, n) = (next(2 * PAGE), 1 + next(200));
                bits.set(off, n);
                model[off as usize..(off + n) as usize].fill(true);
            }
            let len = [1, 2, 4, 8, 12, 16][next(6) as usize];
            let entries: Vec<TraceEntry> = (0..1 + next(32) as u8)
                .map(|lane| {
                    let off = match next(3) {
                        0 => PAGE - 8 + next(16),
                        1 => len * next(2 * PAGE / len),
                        _ => next(3 * PAGE - 16),
                    };
                    entry(lane, off)
                })
                .collect();
            let mut gaps = Vec::new();
            let got = bits.access_all(&entries, len as u32, true, false, &mut gaps);
            let (mut lanes, mut first, mut want_gaps) = (0u32, None, Vec::new());
            for e in &entries {
                let unwritten: Vec<u64> = (e.off..e.off + len)
                    .filter(|&b| !model[b as usize])
                    .collect();
                if !unwritten.is_empty() {
                    lanes |= 1 << e.lane;
                    first.get_or_insert(e.addr);
                    want_gaps.extend(unwritten);
                }
            }
            assert_eq!(got, (lanes, first), "round {round}: {entries:?}");
            gaps.sort_unstable();
            gaps.dedup();
            want_gaps.sort_unstable();
            want_gaps.dedup();
            assert_eq!(gaps, want_gaps, "round {round}");
            missed += lanes.count_ones();
        }
        assert!(missed > 500, "{missed} lanes missed: too few");
    }

    #[test]
    fn the_written_prefix_ends_at_the_first_unwritten_byte() {
        // A window written in pieces near the end of its written prefix, through every
        // way of marking (a debugger write; an access's entries in lane order, which
        // mark as one range; the same shuffled, and an atomic's, which mark one by
        // one), across the 4 KiB page boundaries: after each, the prefix ends at the
        // model's first unwritten byte, and checks answer as the model does.
        let mut next = below(0x9e37_79b9_7f4a_7c15);
        let size = 3 * PAGE;
        let mut longest = 0;
        for round in 0..100 {
            let mut bits = InitBits::new(size);
            let mut model = vec![false; size as usize];
            for step in 0..60 {
                let len = [1u64, 2, 4, 8, 16][next(5) as usize];
                let lanes = 1 + next(32);
                let base = (bits.solid.saturating_sub(next(96))).min(size - len * lanes);
                let mut entries: Vec<TraceEntry> = (0..lanes as u8)
                    .map(|lane| entry(lane, base + len * lane as u64))
                    .collect();
                let mut gaps = Vec::new();
                match next(4) {
                    0 => bits.set(base, len * lanes),
                    1 => _ = bits.access_all(&entries, len as u32, false, true, &mut gaps),
                    k => {
                        for i in (1..entries.len()).rev() {
                            entries.swap(i, next(i as u64 + 1) as usize);
                        }
                        _ = bits.access_all(&entries, len as u32, k == 3, true, &mut gaps);
                    }
                }
                model[base as usize..(base + len * lanes) as usize].fill(true);
                let first_unwritten = model.iter().position(|&b| !b).unwrap_or(model.len());
                assert_eq!(
                    bits.solid, first_unwritten as u64,
                    "round {round}, step {step}"
                );
                let (off, n) = (next(size - 16), 1 + next(16));
                let want = model[off as usize..(off + n) as usize].iter().all(|&b| b);
                assert_eq!(bits.all_set(off, n), want, "round {round}, step {step}");
                let from = next(bits.solid + 1);
                assert!(
                    bits.all_set(from, bits.solid - from),
                    "round {round}, step {step}"
                );
                if bits.solid < size {
                    let upto = bits.solid + 1 - from;
                    assert!(!bits.all_set(from, upto), "round {round}, step {step}");
                }
                // A run of words near the prefix's end: written as far as the prefix
                // tells, exactly when its bytes end inside it.
                let lanes = (u32::MAX >> next(32)) << next(4);
                let span = 32 - lanes.leading_zeros() - lanes.trailing_zeros();
                let off = 4 * ((bits.solid / 4).saturating_sub(next(40))).min(size / 4 - 40);
                let trace = MemTrace {
                    len: 4,
                    run: Some(TraceRun {
                        lanes,
                        addr: off,
                        off,
                    }),
                    ..MemTrace::default()
                };
                let inside = off + 4 * span as u64 <= first_unwritten as u64;
                assert_eq!(bits.written(&trace), inside, "round {round}, step {step}");
                // The same as scattered entries (a gather).
                let trace = MemTrace {
                    len: 4,
                    entries: (0..1 + next(8) as u8)
                        .map(|lane| entry(lane, off + 4 * next(span as u64)))
                        .collect(),
                    ..MemTrace::default()
                };
                let end = trace.entries.iter().map(|e| e.off + 4).max().unwrap_or(0);
                let inside = end <= first_unwritten as u64;
                assert_eq!(bits.written(&trace), inside, "round {round}, step {step}");
            }
            longest = longest.max(bits.solid);
        }
        assert!(longest > PAGE, "the prefix never passed a page: {longest}");
    }

    #[test]
    fn traced_runs_find_the_unwritten_bytes_their_entries_find() {
        // Two bitmaps see the same accesses, one as one or two trace runs, the other as
        // their entries: reads (check), stores (mark) and atomics (both) of runs of 1-8
        // words with gaps, a second run meeting the first or not, some across the 4 KiB
        // page boundary, into a 12 KiB window. The same lanes and first address each time.
        let mut next = below(0x9e37_79b9_7f4a_7c15);
        let mut missed = 0;
        for round in 0..300 {
            let (mut traced, mut entries) = (InitBits::new(12288), InitBits::new(12288));
            for step in 0..16 {
                let (check, mark) = [(true, false), (false, true), (true, true)][next(3) as usize];
                let (n, n2) = (1 + next(8), next(9));
                // A run's lanes, with one lane off one time in three.
                let mut lanes = |n: u64, shift: u64| {
                    let all = (1u32 << n) - 1;
                    let some = all & !(1 << next(n.max(1)));
                    (if next(3) == 0 && some != 0 { some } else { all }) << shift
                };
                let (l1, l2) = (lanes(n, 0), lanes(n2, n));
                // A word of the window's first 256, or (one time in four) near 4 KiB.
                let mut at = || {
                    let w = next(64);
                    4 * if next(4) == 0 { 1016 + w % 16 } else { w }
                };
                let (a, b) = (at(), at());
                let trace = MemTrace {
                    len: 4,
                    run: Some(TraceRun {
                        lanes: l1,
                        addr: a,
                        off: a,
                    }),
                    run2: (n2 > 0).then_some(TraceRun {
                        lanes: l2,
                        addr: b,
                        off: b,
                    }),
                    ..MemTrace::default()
                };
                let list: Vec<TraceEntry> = trace.accesses().collect();
                let (mut g1, mut g2) = (Vec::new(), Vec::new());
                let got = traced.access_trace(&trace, check, mark, &mut g1);
                let want = entries.access_all(&list, 4, check, mark, &mut g2);
                assert_eq!(got, want, "round {round}, step {step}: {trace:?}");
                g1.sort_unstable();
                g2.sort_unstable();
                assert_eq!(g1, g2, "round {round}, step {step}: {trace:?}");
                assert_eq!(g1.is_empty(), got.0 == 0);
                missed += got.0.count_ones();
            }
        }
        assert!(
            missed > 100,
            "{missed} lanes missed: too few to compare the paths"
        );
    }
}
