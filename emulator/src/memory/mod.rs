//! Memory: copy-on-write paged byte arrays (so snapshots are cheap), the sparse global
//! address space of allocated buffers, and buffer descriptors.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// Bytes per page of a [`PagedBytes`].
pub(crate) const PAGE: usize = 4096;

/// The memory spaces a kernel addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Space {
    /// The global address space (allocated buffers).
    Global,
    /// A workgroup's shared-memory window.
    Shared,
    /// A lane's private scratch.
    Scratch,
}

impl Space {
    /// The space's name.
    pub const fn name(self) -> &'static str {
        match self {
            Space::Global => "global",
            Space::Shared => "shared",
            Space::Scratch => "scratch",
        }
    }
}

/// Bytes per line of a page's written-lines mask: a page has 64 lines, one bit each.
pub const LINE: u64 = (PAGE / 64) as u64;

/// One 4 KiB page and which of its 64-byte lines were written in its array's current
/// epoch (time travel's index reads them; see [`PagedBytes::written_since`]).
#[derive(Debug, Clone)]
struct Page {
    bytes: [u8; PAGE],
    /// A bit per line written while the page's epoch was `epoch`.
    lines: u64,
    epoch: u32,
}

impl Page {
    const ZERO: Page = Page {
        bytes: [0; PAGE],
        lines: 0,
        epoch: 0,
    };

    /// Notes a write of `n >= 1` bytes at `within` in epoch `epoch`.
    #[inline(always)]
    fn mark(&mut self, epoch: u32, within: usize, n: usize) {
        if self.epoch != epoch {
            self.epoch = epoch;
            self.lines = 0;
        }
        let (first, last) = (within / LINE as usize, (within + n - 1) / LINE as usize);
        self.lines |= (u64::MAX >> (63 - (last - first))) << first;
    }
}

impl std::ops::Deref for Page {
    type Target = [u8; PAGE];
    fn deref(&self) -> &[u8; PAGE] {
        &self.bytes
    }
}

/// A byte array stored as shared 4 KiB pages; cloning shares pages until one is written.
/// Equality is of the bytes (and length) only.
#[derive(Debug)]
pub struct PagedBytes {
    pages: Vec<Arc<Page>>,
    len: u64,
    /// The epoch writes are marked in (see [`PagedBytes::written_since`]).
    epoch: u32,
    /// The pages known to be this array's alone.
    owned: Owned,
}

impl Clone for PagedBytes {
    fn clone(&self) -> Self {
        // Every page is shared from now on, by both arrays.
        self.owned.clear_all();
        PagedBytes {
            pages: self.pages.clone(),
            len: self.len,
            epoch: self.epoch,
            owned: Owned::default(),
        }
    }
}

/// A bit per page of a [`PagedBytes`]: set, the page's `Arc` is held by that array alone
/// (no other strong or weak reference), so a write needs no `Arc::make_mut`, whose
/// locked compare-exchange per written page was a tenth of a shared-atomics kernel's
/// time. Set by the copy-on-write that makes a page the array's own; cleared wherever a
/// page may become shared or be replaced: the array cloned (both sides), a page handed to
/// or taken from another array (`sync_from`). Atomic only because a clone clears them
/// through `&self`; relaxed loads and stores are plain moves.
#[derive(Default)]
struct Owned(Vec<AtomicU64>);

impl std::fmt::Debug for Owned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Owned")
    }
}

impl Owned {
    #[inline(always)]
    fn get(&self, page: usize) -> bool {
        self.0
            .get(page / 64)
            .is_some_and(|w| w.load(Ordering::Relaxed) >> (page % 64) & 1 == 1)
    }

    #[inline]
    fn set(&mut self, page: usize) {
        if page / 64 >= self.0.len() {
            self.0.resize_with(page / 64 + 1, AtomicU64::default);
        }
        let w = self.0[page / 64].get_mut();
        *w |= 1 << (page % 64);
    }

    fn clear(&self, page: usize) {
        if let Some(w) = self.0.get(page / 64) {
            w.fetch_and(!(1 << (page % 64)), Ordering::Relaxed);
        }
    }

    fn clear_all(&self) {
        for w in &self.0 {
            w.store(0, Ordering::Relaxed);
        }
    }
}

/// Page `i` of `pages` for writing: copied first when shared (copy-on-write), without
/// the copy-on-write's atomic check when `owned` knows it is not.
#[inline(always)]
fn page_mut<'a>(pages: &'a mut [Arc<Page>], owned: &mut Owned, i: usize) -> Option<&'a mut Page> {
    let p = pages.get_mut(i)?;
    if owned.get(i) {
        // SAFETY: `owned`'s bit says this `Arc` is the page's only reference, strong or
        // weak (see `Owned`), and we hold it mutably: no other reference to the page can
        // exist while the returned one lives. The pointer comes from the `Arc` itself,
        // as `Arc::get_mut` makes it.
        return Some(unsafe { &mut *Arc::as_ptr(p).cast_mut() });
    }
    let page = Arc::make_mut(p);
    owned.set(i);
    Some(page)
}

impl PartialEq for PagedBytes {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len
            && self.pages.len() == other.pages.len()
            && self
                .pages
                .iter()
                .zip(&other.pages)
                .all(|(a, b)| Arc::ptr_eq(a, b) || a.bytes == b.bytes)
    }
}

impl Eq for PagedBytes {}

impl PagedBytes {
    /// `len` zero bytes (all pages share one zero page until written).
    pub fn zeroed(len: u64) -> Self {
        let zero = Arc::new(Page::ZERO);
        let n = (len as usize).div_ceil(PAGE);
        Self {
            pages: vec![zero; n],
            len,
            epoch: 0,
            owned: Owned::default(),
        }
    }

    /// Length in bytes, as given to [`PagedBytes::zeroed`]; pages past it are never touched.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the array is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether `[off, off + n)` lies inside.
    pub fn contains(&self, off: u64, n: u64) -> bool {
        off.checked_add(n).is_some_and(|end| end <= self.len)
    }

    /// Copies bytes out. The caller checks bounds with [`PagedBytes::contains`]; bytes
    /// past the end read as zero rather than panicking.
    pub fn read(&self, off: u64, out: &mut [u8]) {
        let mut pos = off as usize;
        let mut done = 0;
        while done < out.len() {
            let (page, within) = (pos / PAGE, pos % PAGE);
            let n = (PAGE - within).min(out.len() - done);
            match self.pages.get(page) {
                Some(p) => out[done..done + n].copy_from_slice(&p[within..within + n]),
                None => out[done..done + n].fill(0),
            }
            done += n;
            pos += n;
        }
    }

    /// Copies bytes in (copying a shared page first). Bytes past the end are dropped.
    pub fn write(&mut self, off: u64, data: &[u8]) {
        let mut pos = off as usize;
        let mut done = 0;
        while done < data.len() {
            let (page, within) = (pos / PAGE, pos % PAGE);
            let n = (PAGE - within).min(data.len() - done);
            if let Some(p) = page_mut(&mut self.pages, &mut self.owned, page) {
                p.bytes[within..within + n].copy_from_slice(&data[done..done + n]);
                p.mark(self.epoch, within, n);
            }
            done += n;
            pos += n;
        }
    }

    /// Reads `n <= 16` bytes at `off` as a little-endian value (bytes past the end read
    /// as zero). The common case, inside one page, is one fixed-size copy.
    #[inline]
    pub fn read_small(&self, off: u64, n: usize) -> u128 {
        match n {
            1 => self.read_n::<1>(off),
            2 => self.read_n::<2>(off),
            4 => self.read_n::<4>(off),
            8 => self.read_n::<8>(off),
            12 => self.read_n::<12>(off),
            _ => self.read_n::<16>(off),
        }
    }

    #[inline(always)]
    fn read_n<const N: usize>(&self, off: u64) -> u128 {
        let within = off as usize % PAGE;
        match self.pages.get(off as usize / PAGE) {
            Some(p) if within + N <= PAGE => get::<N>(&p[within..within + N]),
            _ => {
                let mut b = [0u8; 16];
                self.read(off, &mut b[..N]);
                u128::from_le_bytes(b)
            }
        }
    }

    /// For each offset in order, replaces the `n <= 16` bytes there with `f(k, old)`
    /// (little-endian; `k` is the offset's index). Copy-on-write is paid once per run of
    /// consecutive offsets on one page, not once per offset; later offsets see earlier
    /// updates, as one-at-a-time writes would.
    pub fn update_run(&mut self, offs: &[u64], n: usize, f: impl FnMut(usize, u128) -> u128) {
        match n {
            1 => self.update_run_n::<1>(offs, f),
            2 => self.update_run_n::<2>(offs, f),
            4 => self.update_run_n::<4>(offs, f),
            8 => self.update_run_n::<8>(offs, f),
            12 => self.update_run_n::<12>(offs, f),
            _ => self.update_run_n::<16>(offs, f),
        }
    }

    #[inline(always)]
    fn update_run_n<const N: usize>(
        &mut self,
        offs: &[u64],
        mut f: impl FnMut(usize, u128) -> u128,
    ) {
        let fits = |off: u64| (off as usize % PAGE) + N <= PAGE;
        let epoch = self.epoch;
        let mut k = 0;
        while k < offs.len() {
            let page = offs[k] as usize / PAGE;
            match fits(offs[k])
                .then(|| page_mut(&mut self.pages, &mut self.owned, page))
                .flatten()
            {
                Some(p) => {
                    while let Some(&off) = offs.get(k) {
                        if off as usize / PAGE != page || !fits(off) {
                            break;
                        }
                        let w = off as usize % PAGE;
                        let new = f(k, get::<N>(&p.bytes[w..w + N])).to_le_bytes();
                        p.bytes[w..w + N].copy_from_slice(&new[..N]);
                        p.mark(epoch, w, N);
                        k += 1;
                    }
                }
                _ => {
                    let old = self.read_n::<N>(offs[k]);
                    let new = f(k, old).to_le_bytes();
                    self.write(offs[k], &new[..N]);
                    k += 1;
                }
            }
        }
    }

    /// The page holding `[lo, hi)` (offsets in the array, `lo < hi <= len`), when that
    /// range lies in one page: accesses all inside it need no page lookup each.
    #[inline]
    pub fn page_of(&self, lo: u64, hi: u64) -> Option<PageRef<'_>> {
        if !(lo < hi && hi <= self.len && lo as usize / PAGE == (hi - 1) as usize / PAGE) {
            return None;
        }
        let page = self.pages.get(lo as usize / PAGE)?;
        Some(PageRef { bytes: &page.bytes })
    }

    /// [`PagedBytes::page_of`], writable: copy-on-write is paid once, here.
    #[inline]
    pub fn page_of_mut(&mut self, lo: u64, hi: u64) -> Option<PageMut<'_>> {
        if !(lo < hi && hi <= self.len && lo as usize / PAGE == (hi - 1) as usize / PAGE) {
            return None;
        }
        let epoch = self.epoch;
        let page = page_mut(&mut self.pages, &mut self.owned, lo as usize / PAGE)?;
        Some(PageMut {
            page,
            epoch,
            lines: 0,
        })
    }

    /// Reads a little-endian value of up to 8 bytes.
    pub fn read_le(&self, off: u64, n: usize) -> u64 {
        let mut b = [0u8; 8];
        self.read(off, &mut b[..n]);
        u64::from_le_bytes(b)
    }

    /// Writes the low `n` bytes of a value, little-endian.
    pub fn write_le(&mut self, off: u64, n: usize, v: u64) {
        self.write(off, &v.to_le_bytes()[..n]);
    }

    /// Makes `self` equal to `other`, which it was earlier a copy of, touching only the
    /// pages that differ (a snapshot refresh costs the pages written since, not the size).
    pub fn sync_from(&mut self, other: &PagedBytes) {
        if self.pages.len() != other.pages.len() {
            self.clone_from(other);
            return;
        }
        self.len = other.len;
        self.epoch = other.epoch;
        for (i, (mine, theirs)) in self.pages.iter_mut().zip(&other.pages).enumerate() {
            if !Arc::ptr_eq(mine, theirs) {
                *mine = Arc::clone(theirs);
                self.owned.clear(i);
                other.owned.clear(i);
            }
        }
    }

    /// Pages (4 KiB each).
    pub fn page_count(&self) -> usize {
        self.pages.len()
    }

    /// Pages that are not the very same page in `other` (a copy made earlier): what a
    /// snapshot of this array holds beyond `other`.
    pub fn pages_not_shared_with(&self, other: &PagedBytes) -> usize {
        self.pages
            .iter()
            .enumerate()
            .filter(|(i, p)| other.pages.get(*i).is_none_or(|q| !Arc::ptr_eq(p, q)))
            .count()
    }

    /// The pages written since `prev`, an earlier copy of this array, as `(page index,
    /// lines)` with a bit per 64-byte line ([`LINE`]) written: a page not shared with
    /// `prev` was written after it (copy-on-write), in the lines its mask holds when the
    /// mask is of this array's current epoch, else (a page from an older epoch) in any.
    /// Exact when the epoch was advanced ([`PagedBytes::next_epoch`]) as `prev` was
    /// copied; a superset of the writes otherwise. Writes that leave the bytes as they
    /// were count too.
    pub fn written_since<'a>(
        &'a self,
        prev: Option<&'a PagedBytes>,
    ) -> impl Iterator<Item = (usize, u64)> + 'a {
        self.pages.iter().enumerate().filter_map(move |(i, p)| {
            if prev
                .and_then(|q| q.pages.get(i))
                .is_some_and(|q| Arc::ptr_eq(p, q))
            {
                return None;
            }
            let lines = if p.epoch == self.epoch {
                p.lines
            } else {
                u64::MAX
            };
            (lines != 0).then_some((i, lines))
        })
    }

    /// The pages written in the current epoch (since [`PagedBytes::next_epoch`], or since
    /// the array was made), as `(page index, lines)`: what [`PagedBytes::written_since`]
    /// names for the copy kept as the epoch started, without that copy (for an array
    /// about to be replaced, whose writes must not be lost).
    pub fn written_this_epoch(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        self.pages
            .iter()
            .enumerate()
            .filter(|(_, p)| p.epoch == self.epoch && p.lines != 0)
            .map(|(i, p)| (i, p.lines))
    }

    /// Starts a new epoch of write marks: call as a copy of the array is kept, so that
    /// [`PagedBytes::written_since`] that copy names only later writes.
    pub fn next_epoch(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
    }

    /// All bytes (for dumps and tests).
    pub fn to_vec(&self) -> Vec<u8> {
        let mut v = vec![0; self.len as usize];
        self.read(0, &mut v);
        v
    }
}

/// One page of a [`PagedBytes`] ([`PagedBytes::page_of`]), read at offsets in the array
/// that fall in it.
#[derive(Debug, Clone, Copy)]
pub struct PageRef<'a> {
    bytes: &'a [u8; PAGE],
}

impl PageRef<'_> {
    /// The `N` (1, 2, 4, 8, 12 or 16) bytes at array offset `off` as a little-endian value;
    /// `off` is in the page (bytes past its end read as zero rather than panicking).
    #[inline(always)]
    pub fn get<const N: usize>(&self, off: u64) -> u128 {
        let w = off as usize % PAGE;
        match self.bytes.get(w..w + N) {
            Some(b) => get::<N>(b),
            None => get::<N>(&self.bytes[w..]),
        }
    }

    /// Fills `out` with the consecutive little-endian 32-bit words from array offset `off`
    /// (in the page): one copy for a run of lanes on consecutive words. Words past the
    /// page's end leave `out` as it was rather than panicking.
    #[inline(always)]
    pub fn words(&self, off: u64, out: &mut [u32]) {
        words(self.bytes, off, out);
    }
}

/// [`PageRef::words`] on a page's bytes.
#[inline(always)]
fn words(bytes: &[u8; PAGE], off: u64, out: &mut [u32]) {
    let w = off as usize % PAGE;
    if let Some(b) = bytes.get(w..w + 4 * out.len()) {
        for (o, c) in out.iter_mut().zip(b.chunks_exact(4)) {
            *o = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
    }
}

/// The lines (a bit each) that bytes `[w, end)` of a page touch, `w < end`.
#[inline(always)]
fn line_span(w: usize, end: usize) -> u64 {
    let (first, last) = (w / LINE as usize, (end - 1) / LINE as usize);
    (u64::MAX >> (63 - (last - first))) << first
}

/// One page of a [`PagedBytes`], writable ([`PagedBytes::page_of_mut`]); the lines its
/// writes touch are marked once, when it is dropped, as [`PagedBytes::write`] marks them.
#[derive(Debug)]
pub struct PageMut<'a> {
    page: &'a mut Page,
    epoch: u32,
    /// The lines written so far, a bit each.
    lines: u64,
}

impl Drop for PageMut<'_> {
    fn drop(&mut self) {
        if self.lines != 0 {
            let p = &mut *self.page;
            if p.epoch != self.epoch {
                p.epoch = self.epoch;
                p.lines = 0;
            }
            p.lines |= self.lines;
        }
    }
}

impl PageMut<'_> {
    /// Writes the low `N` (1, 2 or 4) bytes of `value` at array offset `off` (in the
    /// page), little-endian; bytes past the page's end are dropped.
    #[inline(always)]
    pub fn set<const N: usize>(&mut self, off: u64, value: u32) {
        const { assert!(N >= 1 && N <= 4) };
        let w = off as usize % PAGE;
        let Some(b) = self.page.bytes.get_mut(w..w + N) else {
            return;
        };
        b.copy_from_slice(&value.to_le_bytes()[..N]);
        self.mark::<N>(w);
    }

    /// Replaces the `N` (1, 2, 4, 8, 12 or 16) bytes at array offset `off` (in the page)
    /// with `f(old)`, little-endian; bytes past the page's end are dropped.
    #[inline(always)]
    pub fn update<const N: usize>(&mut self, off: u64, f: impl FnOnce(u128) -> u128) {
        let w = off as usize % PAGE;
        let Some(b) = self.page.bytes.get_mut(w..w + N) else {
            return;
        };
        let new = f(get::<N>(b)).to_le_bytes();
        b.copy_from_slice(&new[..N]);
        self.mark::<N>(w);
    }

    /// [`PageRef::words`] on this page (what lanes read before they write, for atomics).
    #[inline(always)]
    pub fn words(&self, off: u64, out: &mut [u32]) {
        words(&self.page.bytes, off, out);
    }

    /// Writes `data` as consecutive little-endian 32-bit words from array offset `off` (in
    /// the page), word `k` only when bit `k` of `mask` is set, and marks the lines written
    /// as one-word writes would: a run of lanes on consecutive words stored at once. Words
    /// past the page's end are dropped.
    #[inline(always)]
    pub fn set_words(&mut self, off: u64, data: &[u32], mask: u32) {
        let w = off as usize % PAGE;
        let n = data.len();
        let Some(b) = self.page.bytes.get_mut(w..w + 4 * n) else {
            return;
        };
        let words = b.chunks_exact_mut(4);
        let all = u32::MAX >> (32 - n.clamp(1, 32));
        if n == 0 || mask & all == all {
            for (o, &x) in words.zip(data) {
                o.copy_from_slice(&x.to_le_bytes());
            }
            if n > 0 {
                self.lines |= line_span(w, w + 4 * n);
            }
            return;
        }
        for (k, (o, &x)) in words.zip(data).enumerate() {
            if mask.checked_shr(k as u32).unwrap_or(0) & 1 == 1 {
                o.copy_from_slice(&x.to_le_bytes());
                self.lines |= 1 << ((w + 4 * k) / LINE as usize);
            }
        }
    }

    /// Notes a write of `N <= 16` bytes at `w` in the page: one line, or two (rare: the
    /// accesses that use pages are aligned), whose first is marked on a branch of its own.
    #[inline(always)]
    fn mark<const N: usize>(&mut self, w: usize) {
        let last = (w + N - 1) / LINE as usize;
        self.lines |= 1 << last;
        if N > 1 && w / LINE as usize != last {
            self.lines |= 1 << (w / LINE as usize);
        }
    }
}

/// `N` (1, 2, 4, 8, 12 or 16) little-endian bytes as a value: the common sizes as one load
/// of their width (byte copies into a wider buffer would stall store forwarding).
#[inline(always)]
fn get<const N: usize>(b: &[u8]) -> u128 {
    let at = |i: usize| b.get(i).copied().unwrap_or(0);
    match N {
        1 => at(0) as u128,
        2 => u16::from_le_bytes([at(0), at(1)]) as u128,
        4 => u32::from_le_bytes([at(0), at(1), at(2), at(3)]) as u128,
        8 => u64::from_le_bytes(std::array::from_fn(at)) as u128,
        _ => u128::from_le_bytes(std::array::from_fn(|i| if i < N { at(i) } else { 0 })),
    }
}

/// The first global address handed out; buffers are placed upward from here.
pub const GLOBAL_BASE: u64 = 0x1_0000_0000;
/// Buffers start on this alignment, with at least this much unmapped space between them,
/// so that running off the end of one faults instead of touching the next.
pub const GLOBAL_ALIGN: u64 = 0x1_0000;

/// One allocated global buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allocation {
    /// The buffer's name.
    pub name: String,
    /// Its first address: a multiple of [`GLOBAL_ALIGN`], at or above [`GLOBAL_BASE`].
    pub base: u64,
    /// Its contents; their length is the buffer's size in bytes.
    pub data: PagedBytes,
}

/// The sparse 64-bit global address space: allocated buffers, nothing else.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GlobalMemory {
    allocs: Vec<Allocation>,
}

impl GlobalMemory {
    /// Allocates `size` bytes (deterministic placement) and returns the base address.
    pub fn allocate(&mut self, name: &str, size: u64, init: &[u8]) -> u64 {
        let base = self.allocs.last().map_or(GLOBAL_BASE, |a| {
            (a.base + a.data.len() + GLOBAL_ALIGN).next_multiple_of(GLOBAL_ALIGN)
        });
        let mut data = PagedBytes::zeroed(size);
        data.write(0, &init[..init.len().min(size as usize)]);
        self.allocs.push(Allocation {
            name: name.to_string(),
            base,
            data,
        });
        base
    }

    /// Makes `self` equal to `other` by [`PagedBytes::sync_from`] on each allocation.
    pub fn sync_from(&mut self, other: &GlobalMemory) {
        let same_layout = self.allocs.len() == other.allocs.len()
            && self
                .allocs
                .iter()
                .zip(&other.allocs)
                .all(|(a, b)| a.base == b.base && a.name == b.name);
        if !same_layout {
            self.clone_from(other);
            return;
        }
        for (mine, theirs) in self.allocs.iter_mut().zip(&other.allocs) {
            mine.data.sync_from(&theirs.data);
        }
    }

    /// Starts a new epoch of write marks in every buffer ([`PagedBytes::next_epoch`]).
    pub fn next_epoch(&mut self) {
        for a in &mut self.allocs {
            a.data.next_epoch();
        }
    }

    /// The allocations, in address order.
    pub fn allocations(&self) -> &[Allocation] {
        &self.allocs
    }

    /// The allocation named `name`.
    pub fn by_name(&self, name: &str) -> Option<&Allocation> {
        self.allocs.iter().find(|a| a.name == name)
    }

    /// The allocation holding `[addr, addr + n)` and the offset in it, trying allocation
    /// `*hint` first (the previous lane's, usually) and updating it.
    #[inline]
    pub fn locate_hint(&self, addr: u64, n: u64, hint: &mut usize) -> Option<(usize, u64)> {
        if let Some(a) = self.allocs.get(*hint) {
            if let Some(off) = addr.checked_sub(a.base) {
                if a.data.contains(off, n) {
                    return Some((*hint, off));
                }
            }
        }
        let found = self.locate(addr, n)?;
        *hint = found.0;
        Some(found)
    }

    /// The bytes of allocation `i` (an index from [`GlobalMemory::locate_hint`]).
    pub fn bytes(&self, i: usize) -> Option<&PagedBytes> {
        self.allocs.get(i).map(|a| &a.data)
    }

    /// The bytes of allocation `i`, writable.
    pub fn bytes_mut(&mut self, i: usize) -> Option<&mut PagedBytes> {
        self.allocs.get_mut(i).map(|a| &mut a.data)
    }

    fn locate(&self, addr: u64, n: u64) -> Option<(usize, u64)> {
        let i = self
            .allocs
            .partition_point(|a| a.base <= addr)
            .checked_sub(1)?;
        let a = &self.allocs[i];
        let off = addr - a.base;
        a.data.contains(off, n).then_some((i, off))
    }

    /// Whether `[addr, addr + n)` lies inside one allocation.
    pub fn is_mapped(&self, addr: u64, n: u64) -> bool {
        self.locate(addr, n).is_some()
    }

    /// Reads bytes; `None` if any byte is unmapped.
    pub fn read(&self, addr: u64, out: &mut [u8]) -> Option<()> {
        let (i, off) = self.locate(addr, out.len() as u64)?;
        self.allocs[i].data.read(off, out);
        Some(())
    }

    /// Writes bytes; `None` (and nothing written) if any byte is unmapped.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Option<()> {
        let (i, off) = self.locate(addr, data.len() as u64)?;
        self.allocs[i].data.write(off, data);
        Some(())
    }

    /// Reads a little-endian value of `n` <= 8 bytes.
    pub fn read_le(&self, addr: u64, n: usize) -> Option<u64> {
        let mut b = [0u8; 8];
        self.read(addr, &mut b[..n])?;
        Some(u64::from_le_bytes(b))
    }

    /// Writes the low `n` bytes of `v`.
    pub fn write_le(&mut self, addr: u64, n: usize, v: u64) -> Option<()> {
        self.write(addr, &v.to_le_bytes()[..n])
    }
}

/// A buffer descriptor as held in four uniform registers (docs/memory.md):
/// dword 0-1 the 64-bit base address, dword 2 the size in bytes, dword 3 flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferDescriptor {
    /// The buffer's first global address (dwords 0-1).
    pub base: u64,
    /// The buffer's size in bytes (dword 2); accesses at `base + size` or above are out of bounds.
    pub size: u32,
    /// Flags (bit 0: valid).
    pub flags: u32,
}

impl BufferDescriptor {
    /// Flag bit 0: the descriptor is valid. An invalid (null) descriptor reads 0 and drops
    /// stores and atomics.
    pub const VALID: u32 = 1;

    /// Builds the descriptor of a buffer.
    pub fn new(base: u64, size: u32) -> Self {
        Self {
            base,
            size,
            flags: Self::VALID,
        }
    }

    /// Decodes the four uniform-register dwords (base low, base high, size, flags).
    pub fn from_dwords(d: [u32; 4]) -> Self {
        Self {
            base: d[0] as u64 | (d[1] as u64) << 32,
            size: d[2],
            flags: d[3],
        }
    }

    /// Encodes into four dwords.
    pub fn to_dwords(self) -> [u32; 4] {
        [
            self.base as u32,
            (self.base >> 32) as u32,
            self.size,
            self.flags,
        ]
    }

    /// A null descriptor: not valid, or base 0.
    pub fn is_null(&self) -> bool {
        self.flags & Self::VALID == 0 || self.base == 0
    }

    /// The address of `[offset, offset + n)` if the whole access lies inside the buffer
    /// (an access that only partly overlaps the buffer counts as out of bounds).
    pub fn check(&self, offset: i64, n: u64) -> Option<u64> {
        if self.is_null() || offset < 0 || offset as u64 + n > self.size as u64 {
            return None;
        }
        Some(self.base.wrapping_add(offset as u64))
    }
}

/// Formats bytes as 32-bit little-endian words, eight per line, each line prefixed with
/// its address; a trailing partial word is shown byte by byte.
pub fn hexdump(bytes: &[u8], base: u64) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for (i, line) in bytes.chunks(32).enumerate() {
        let _ = write!(out, "{:#012x}:", base + i as u64 * 32);
        for w in line.chunks(4) {
            if w.len() == 4 {
                let _ = write!(out, " {:08x}", u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
            } else {
                for b in w {
                    let _ = write!(out, " {b:02x}");
                }
            }
        }
        out.push('\n');
    }
    out
}

impl PagedBytes {
    /// Byte ranges `[start, end)` where `self` differs from `before` (an earlier snapshot
    /// of the same array). Pages still shared with the snapshot are skipped without
    /// comparing bytes, so this is cheap when little changed.
    pub fn changed_since(&self, before: &PagedBytes) -> Vec<(u64, u64)> {
        let mut out: Vec<(u64, u64)> = Vec::new();
        for (i, page) in self.pages.iter().enumerate() {
            let Some(old) = before.pages.get(i) else {
                break;
            };
            if Arc::ptr_eq(page, old) {
                continue;
            }
            for (j, (a, b)) in page.bytes.iter().zip(old.bytes.iter()).enumerate() {
                if a != b {
                    let at = (i * PAGE + j) as u64;
                    match out.last_mut() {
                        Some(last) if last.1 == at => last.1 = at + 1,
                        _ => out.push((at, at + 1)),
                    }
                }
            }
        }
        out
    }
}
