//! Loads, stores, atomics and uniform loads (spec group 4).
//!
//! Every active lane's address is checked before anything is written, so a faulting
//! instruction changes nothing. Lanes then access memory in ascending lane order: for
//! stores and atomics to one address the highest lane's effect is last. Rules are in
//! docs/memory.md.

use super::alu::{max_number, min_number};
use super::op::{AddrMode, AtomOp, Op, UldMode};
use super::{merge, AccessKind, AccessLog, Ctx, Decoded, ExecFault, Flow};
use crate::fault::FaultKind;
use crate::isa::RegFile;
use crate::memory::{BufferDescriptor, GlobalMemory, PageMut, PageRef, PagedBytes, Space, PAGE};
use crate::trace::{MemTrace, TraceEntry, TraceRun};
use crate::wave::{Lanes, RegRange, LANES, UREGS};

/// Required alignment of an access of `bytes` (docs/memory.md): natural up to 4 bytes for
/// loads and stores; atomics are naturally aligned (4 or 8).
/// The space an address mode addresses.
pub(crate) fn space_of(mode: AddrMode) -> Space {
    match mode {
        AddrMode::Global | AddrMode::Ubase | AddrMode::Buf => Space::Global,
        AddrMode::Shared => Space::Shared,
        AddrMode::Scratch => Space::Scratch,
    }
}

/// The space whose memory an operation reads (loads, atomics, uniform loads), if any.
pub(crate) fn space_read(op: Op) -> Option<Space> {
    match op {
        Op::Load { mode, .. } | Op::Atomic { mode, .. } => Some(space_of(mode)),
        Op::Uld { .. } => Some(Space::Global),
        _ => None,
    }
}

fn alignment(bytes: u64, atomic: bool) -> u64 {
    if atomic {
        bytes
    } else {
        bytes.min(4)
    }
}

/// Every lane's checked access of one instruction, computed before anything is touched.
struct Targets {
    /// The space all lanes access (one instruction addresses one space).
    space: Space,
    /// Lanes that access memory: active, and not dropped by a buffer bounds check.
    mask: u32,
    /// Per lane: the address as watchpoints name it (a global address, or the offset in
    /// the shared window or in the lane's scratch).
    addr: [u64; LANES],
    /// Per lane: the global allocation (0 for shared and scratch).
    object: [u32; LANES],
    /// Per lane: the offset in the object's bytes (for scratch, from the wave's base).
    off: [u64; LANES],
    /// Whether every accessing lane is on one object, whose bytes `[lo, hi)` hold them all
    /// (then one page may hold them all: [`PagedBytes::page_of`]).
    single: bool,
    /// The lowest offset an accessing lane touches (when `single`).
    lo: u64,
    /// One past the highest offset an accessing lane touches (when `single`).
    hi: u64,
}

impl Targets {
    fn new() -> Self {
        Targets {
            space: Space::Global,
            mask: 0,
            addr: [0; LANES],
            object: [0; LANES],
            off: [0; LANES],
            single: false,
            lo: 0,
            hi: 0,
        }
    }

    /// When every accessing lane is on one object and in one page of it, that page.
    #[inline]
    fn page<'c>(&self, ctx: &'c Ctx<'_>) -> Option<PageRef<'c>> {
        if !self.single || self.mask == 0 {
            return None;
        }
        object(ctx, self, self.mask.trailing_zeros() as usize)?.page_of(self.lo, self.hi)
    }

    /// [`Targets::page`], writable.
    #[inline]
    fn page_mut<'c>(&self, ctx: &'c mut Ctx<'_>) -> Option<PageMut<'c>> {
        if !self.single || self.mask == 0 {
            return None;
        }
        object_mut(ctx, self, self.mask.trailing_zeros() as usize)?.page_of_mut(self.lo, self.hi)
    }

    /// The accessing lanes, in ascending order.
    fn lanes(&self) -> Lanes {
        Lanes(self.mask)
    }
}

/// Where the active lanes of an instruction access memory when one page of one object
/// holds all their bytes and no watchpoint records them: found with one check for the whole
/// wave, no lane searched or checked alone.
struct OnePage {
    /// The space of the object.
    space: Space,
    /// The global allocation (0 for shared).
    object: usize,
    /// The object's bytes `[lo, hi)`, in one page, hold every active lane's access.
    lo: u64,
    /// One past the range's last byte.
    hi: u64,
    /// Per lane: its offset in the page (inactive lanes: an active lane's).
    rel: [u32; LANES],
}

/// Where an instruction's lanes access memory: one page for all (the fast path), or each
/// lane's own target.
// It lives on the stack for one instruction: boxing the large variant would allocate on
// every lane-by-lane instruction instead.
#[allow(clippy::large_enum_variant)]
enum Placed {
    /// Every active lane in one page ([`one_page`]).
    Page(OnePage),
    /// Lane by lane ([`targets`]).
    Lanes(Targets),
}

/// Whether a watchpoint covers any of the bytes `[lo, hi)` of object `object` of
/// `space` (a global allocation's index, or the shared window): then an access there
/// takes the lane-by-lane path, which records the lanes that touch watched bytes.
#[inline]
fn watched_bytes(ctx: &Ctx<'_>, space: Space, object: usize, lo: u64, hi: u64) -> bool {
    watched_in(ctx.accesses.as_deref(), ctx.global, space, object, lo, hi)
}

/// [`watched_bytes`] with the watchpoints' log `log` (none: nothing is watched).
#[inline]
pub(super) fn watched_in(
    log: Option<&AccessLog>,
    global: &GlobalMemory,
    space: Space,
    object: usize,
    lo: u64,
    hi: u64,
) -> bool {
    let Some(log) = log else {
        return false;
    };
    log.wants(
        space,
        object_base(global, space, object) + lo,
        (hi - lo) as u32,
    )
}

/// The lanes' places when one page holds all of them and no watchpoint covers their
/// bytes (`None` otherwise: a fault, another mode, several pages or objects, a watched
/// byte). The same accesses the lane-by-lane path would make:
/// every lane aligned and inside.
#[inline(always)]
fn one_page(
    ctx: &Ctx<'_>,
    d: &Decoded,
    mode: AddrMode,
    bytes: u64,
    atomic: bool,
) -> Option<OnePage> {
    let p = one_page_of(ctx, d, mode, bytes, atomic)?;
    (!watched_bytes(ctx, p.space, p.object, p.lo, p.hi)).then_some(p)
}

/// [`one_page`] before the watchpoints' check.
#[inline(always)]
fn one_page_of(
    ctx: &Ctx<'_>,
    d: &Decoded,
    mode: AddrMode,
    bytes: u64,
    atomic: bool,
) -> Option<OnePage> {
    let w = &*ctx.wave;
    let exec = w.exec;
    if exec == 0 {
        return None;
    }
    let i = d.instr;
    let align = alignment(bytes, atomic);
    match mode {
        AddrMode::Ubase | AddrMode::Shared => return one_page32(ctx, d, mode, bytes, align),
        AddrMode::Buf | AddrMode::Scratch => return None,
        AddrMode::Global => {}
    }
    // 64-bit addresses: each lane's bytes lie `addr[l] - lo` past the lowest lane's.
    let (s1, hi_word) = (&w.v[i.rs1 as usize], &w.v[i.rs1 as usize + 1]);
    let addr: [u64; LANES] = std::array::from_fn(|l| {
        (s1[l] as u64 | (hi_word[l] as u64) << 32).wrapping_add(i.imm as u64)
    });
    let (lo, hi, or) = span(exec, &addr);
    let span = (hi - lo).checked_add(bytes)?;
    if or & (align - 1) != 0 || span > PAGE as u64 {
        return None;
    }
    let (object, off) = ctx.global.locate_hint(lo, span, &mut 0)?;
    let end = off + span;
    if off as usize / PAGE != (end - 1) as usize / PAGE {
        return None;
    }
    let within = (off as usize % PAGE) as u32;
    Some(OnePage {
        space: Space::Global,
        object,
        lo: off,
        hi: end,
        rel: std::array::from_fn(|l| {
            ((addr[l].wrapping_sub(lo) as u32) & super::lane_mask(exec, l)).wrapping_add(within)
        }),
    })
}

/// [`one_page`] for 32-bit offsets from a base (`ubase` and shared) and an access of its
/// own alignment (so it never straddles a page): with `c` the base's offset in its page,
/// lanes are in one page when every active lane's `offset + c` agrees with the first
/// one's above the page bits, a check of bitwise operations only (plain SIMD), as is the
/// bounds check of each lane's offset in the page against the object's end.
#[inline(always)]
fn one_page32(
    ctx: &Ctx<'_>,
    d: &Decoded,
    mode: AddrMode,
    bytes: u64,
    align: u64,
) -> Option<OnePage> {
    let w = &*ctx.wave;
    let (exec, i) = (w.exec, d.instr);
    if bytes != align {
        return None;
    }
    let s1 = &w.v[i.rs1 as usize];
    // The address (or window offset) of offset 0; none wraps (the offsets are below 2^31).
    let start = if mode == AddrMode::Ubase {
        let r = i.rs2 as usize;
        let base = (w.u[r] as u64 | (w.u[r + 1] as u64) << 32) as i128 + i.imm as i128;
        u64::try_from(base).ok()?
    } else {
        u64::try_from(i.imm).ok()?
    };
    start.checked_add(1 << 32)?;
    let page = PAGE as u32;
    let c = (start % PAGE as u64) as u32;
    let first = s1[exec.trailing_zeros() as usize].wrapping_add(c);
    let (mut or, mut differ) = (0u32, 0u32);
    for (l, &x) in s1.iter().enumerate() {
        let on = super::lane_mask(exec, l);
        or |= x & on;
        differ |= (x.wrapping_add(c) ^ first) & on;
    }
    if or >= 1 << 31 || differ >= page || (start | or as u64) & (align - 1) != 0 {
        return None;
    }
    // The page's first address (or window offset), and where it is in its object.
    let at = start - c as u64 + (first & !(page - 1)) as u64;
    let (space, object, lo, len) = if mode == AddrMode::Ubase {
        let within = (first % page) as u64;
        let (alloc, off) = ctx.global.locate_hint(at + within, bytes, &mut 0)?;
        let lo = off.checked_sub(within)?;
        (Space::Global, alloc, lo, ctx.global.bytes(alloc)?.len())
    } else {
        (Space::Shared, 0, at, ctx.shared.len())
    };
    if !lo.is_multiple_of(PAGE as u64) {
        return None;
    }
    let limit = len.checked_sub(lo)?.min(PAGE as u64) as i32;
    let rel: [u32; LANES] = std::array::from_fn(|l| {
        let on = super::lane_mask(exec, l);
        (s1[l].wrapping_add(c) & on | first & !on) & (page - 1)
    });
    // Every lane's bytes end inside the object: `rel + bytes <= limit`, as a sign bit.
    let outside = rel
        .iter()
        .fold(0, |acc, &r| acc | (limit - r as i32 - bytes as i32));
    if outside < 0 {
        return None;
    }
    Some(OnePage {
        space,
        object,
        lo,
        hi: lo + limit as u64,
        rel,
    })
}

/// Places every active lane's access: [`one_page`] when it can, else [`targets`] (which
/// raises the instruction's fault, if any).
#[inline(always)]
fn place(
    ctx: &Ctx<'_>,
    d: &Decoded,
    mode: AddrMode,
    bytes: u64,
    atomic: bool,
) -> Result<Placed, ExecFault> {
    if let Some(p) = one_page(ctx, d, mode, bytes, atomic) {
        return Ok(Placed::Page(p));
    }
    let mut placed = Placed::Lanes(Targets::new());
    if let Placed::Lanes(t) = &mut placed {
        targets(ctx, d, mode, bytes, atomic, t)?;
    }
    Ok(placed)
}

/// The bytes of `object` (a global allocation) or of the shared window, where a
/// [`OnePage`] or a [`Run`] is.
fn page_object<'c>(
    global: &'c GlobalMemory,
    shared: &'c PagedBytes,
    space: Space,
    object: usize,
) -> Option<&'c PagedBytes> {
    match space {
        Space::Global => global.bytes(object),
        _ => Some(shared),
    }
}

/// [`page_object`], writable.
fn page_object_mut<'c>(
    global: &'c mut GlobalMemory,
    shared: &'c mut PagedBytes,
    space: Space,
    object: usize,
) -> Option<&'c mut PagedBytes> {
    match space {
        Space::Global => global.bytes_mut(object),
        _ => Some(shared),
    }
}

/// Active lanes on consecutive 32-bit words (each lane one word past the lane below it,
/// inactive lanes between keeping their places), all in one page of one object, when
/// no watchpoint records them: the lanes then read or write their words as one run.
pub(super) struct Run {
    /// The space of the object.
    space: Space,
    /// The global allocation (0 for shared).
    object: usize,
    /// The object's bytes `[lo, hi)`, in one page, from the first active lane's word to
    /// the end of the last one's.
    lo: u64,
    /// One past the range's last byte.
    hi: u64,
    /// The lanes on the run, at least one (every active lane, or one of the two runs of
    /// [`RunPlace::runs`]).
    lanes: u32,
}

impl Run {
    /// Whether this run's bytes and `other`'s have none in common.
    #[inline(always)]
    fn disjoint(&self, other: &Run) -> bool {
        (self.space, self.object) != (other.space, other.object)
            || self.hi <= other.lo
            || other.hi <= self.lo
    }

    /// The lanes from the run's lowest to its highest (those between it does not have
    /// keep their places): the range of lanes its words are for.
    #[inline(always)]
    fn span(&self) -> std::ops::RangeInclusive<usize> {
        self.lanes.trailing_zeros() as usize..=31 - self.lanes.leading_zeros() as usize
    }

    /// The lanes on the run from its lowest, as a mask from bit 0.
    #[inline(always)]
    fn mask(&self) -> u32 {
        self.lanes >> self.lanes.trailing_zeros()
    }
}

/// Whether the active lanes' values step by 4 from lane to lane (`v[l] - 4 l` the same
/// for all): one compare per lane, no branch, so it vectorises.
#[inline(always)]
fn stride4(exec: u32, v: &[u32; LANES]) -> bool {
    let f = exec.trailing_zeros();
    let b = v[f as usize].wrapping_sub(4 * f);
    let mut differ = 0;
    if exec == u32::MAX {
        for (l, &x) in v.iter().enumerate() {
            differ |= x.wrapping_sub(4 * l as u32) ^ b;
        }
    } else {
        for (l, &x) in v.iter().enumerate() {
            differ |= (x.wrapping_sub(4 * l as u32) ^ b) & super::lane_mask(exec, l);
        }
    }
    differ == 0
}

/// [`stride4`] of 64-bit values.
#[inline(always)]
fn stride4_64(exec: u32, v: &[u64; LANES]) -> bool {
    let f = exec.trailing_zeros();
    let b = v[f as usize].wrapping_sub(4 * f as u64);
    let mut differ = 0;
    for (l, &x) in v.iter().enumerate() {
        let on = super::lane_mask(exec, l) as u64;
        differ |= (x.wrapping_sub(4 * l as u64) ^ b) & (on | on << 32);
    }
    differ == 0
}

/// The [`Run`]s of a 32-bit access (`ubase`, shared or global), if its active lanes make
/// one or two ([`RunPlace::runs`]): consecutive words, the first one aligned, no address
/// wrapping between a run's first lane and its last, every byte of a run in one page of
/// one object, none watched. `None` otherwise (anything else, including every fault,
/// takes [`place`]).
#[inline(always)]
fn run32(ctx: &Ctx<'_>, d: &Decoded, mode: AddrMode) -> Option<Runs> {
    let (w, i) = (&*ctx.wave, d.instr);
    let p = RunPlace {
        mode,
        rs1: i.rs1 as usize,
        rs2: i.rs2 as usize,
        imm: i.imm,
        v: &w.v,
        u: &w.u,
        global: ctx.global,
        shared_len: ctx.shared.len(),
        log: ctx.accesses.as_deref(),
    };
    p.runs(w.exec)
}

/// What places a 32-bit access's lanes: the address mode, the address register (`rs1`, a
/// pair for global), the uniform base pair (`rs2`, ubase), the offset; the wave's vector
/// registers `v` (holding every register named) and uniform registers `u`; global
/// memory, the bytes of shared memory, and the watchpoints' log.
pub(super) struct RunPlace<'a, V: ?Sized> {
    pub mode: AddrMode,
    pub rs1: usize,
    pub rs2: usize,
    pub imm: i64,
    pub v: &'a V,
    pub u: &'a [u32; UREGS],
    pub global: &'a GlobalMemory,
    pub shared_len: u64,
    pub log: Option<&'a AccessLog>,
}

impl<V> RunPlace<'_, V>
where
    V: std::ops::Index<usize, Output = [u32; LANES]> + ?Sized,
{
    /// The [`Run`] of the lanes in `exec` ([`run32`]).
    #[inline(always)]
    pub(super) fn run(&self, exec: u32) -> Option<Run> {
        let r = self.run_unwatched(exec)?;
        (!watched_in(self.log, self.global, r.space, r.object, r.lo, r.hi)).then_some(r)
    }

    /// [`RunPlace::run`], or else two runs: the active lanes up to some lane on
    /// consecutive words, the rest on consecutive words elsewhere (a window that wraps
    /// round, a rotation), each run in one page and unwatched. The runs are taken in
    /// order (the first's lanes below the second's), which is lane order even where their
    /// words meet. Ubase and shared addresses only (32-bit offsets).
    #[inline(always)]
    pub(super) fn runs(&self, exec: u32) -> Option<Runs> {
        if let Some(r) = self.run(exec) {
            return Some((r, None));
        }
        if exec == 0 || !matches!(self.mode, AddrMode::Ubase | AddrMode::Shared) {
            return None;
        }
        // Each lane's offset less its place in a run: equal along a run.
        let s1 = &self.v[self.rs1];
        let (first, last) = (exec.trailing_zeros(), 31 - exec.leading_zeros());
        let b0 = s1[first as usize].wrapping_sub(4 * first);
        let b1 = s1[last as usize].wrapping_sub(4 * last);
        let (mut m0, mut m1) = (0u32, 0u32);
        for (l, &x) in s1.iter().enumerate() {
            let b = x.wrapping_sub(4 * l as u32);
            m0 |= ((b == b0) as u32) << l;
            m1 |= ((b == b1) as u32) << l;
        }
        let (m0, m1) = (m0 & exec, m1 & exec & !m0);
        if m0 | m1 != exec || m1 == 0 || 31 - m0.leading_zeros() > m1.trailing_zeros() {
            return None;
        }
        Some((self.run(m0)?, Some(self.run(m1)?)))
    }

    /// [`RunPlace::run`] before the watchpoints' check.
    #[inline(always)]
    fn run_unwatched(&self, exec: u32) -> Option<Run> {
        if exec == 0 {
            return None;
        }
        let (first, last) = (
            exec.trailing_zeros() as usize,
            31 - exec.leading_zeros() as usize,
        );
        let mode = self.mode;
        let s1 = &self.v[self.rs1];
        // The first active lane's address (or window offset), and one past the last's bytes.
        let (lo, hi) = match mode {
            AddrMode::Ubase | AddrMode::Shared => {
                let (a, b) = (s1[first], s1[last]);
                if b < a || !stride4(exec, s1) {
                    return None;
                }
                let start = if mode == AddrMode::Ubase {
                    let (u, r) = (self.u, self.rs2);
                    (u[r] as u64 | (u[r + 1] as u64) << 32) as i128 + self.imm as i128
                } else {
                    self.imm as i128
                };
                (start + a as i128, start + b as i128 + 4)
            }
            AddrMode::Global => {
                let hi_word = &self.v[self.rs1 + 1];
                let addr: [u64; LANES] = std::array::from_fn(|l| {
                    (s1[l] as u64 | (hi_word[l] as u64) << 32).wrapping_add(self.imm as u64)
                });
                let (a, b) = (addr[first], addr[last]);
                if b < a || !stride4_64(exec, &addr) {
                    return None;
                }
                (a as i128, b as i128 + 4)
            }
            AddrMode::Buf | AddrMode::Scratch => return None,
        };
        let lo = u64::try_from(lo).ok()?;
        let hi = u64::try_from(hi).ok()?;
        if lo % 4 != 0 {
            return None;
        }
        let len = hi - lo;
        let (space, object, off) = if mode == AddrMode::Shared {
            if hi > self.shared_len {
                return None;
            }
            (Space::Shared, 0, lo)
        } else {
            let (alloc, off) = self.global.locate_hint(lo, len, &mut 0)?;
            (Space::Global, alloc, off)
        };
        if off as usize / PAGE != (off + len - 1) as usize / PAGE {
            return None;
        }
        Some(Run {
            space,
            object,
            lo: off,
            hi: off + len,
            lanes: exec,
        })
    }
}

/// Writes `new` to the lanes of `dst` set in `exec`: a plain copy when all are.
#[inline(always)]
fn put(dst: &mut [u32; LANES], new: &[u32; LANES], exec: u32) {
    if exec == u32::MAX {
        *dst = *new;
    } else {
        merge(dst, new, exec);
    }
}

/// The lowest and highest of the values of the lanes in `mask`, and the OR of them all
/// (`(u64::MAX, 0, 0)` for no lane): one branch-free pass that vectorises.
#[inline]
fn span(mask: u32, v: &[u64; LANES]) -> (u64, u64, u64) {
    let (mut lo, mut hi, mut or) = (u64::MAX, 0, 0);
    for (l, &x) in v.iter().enumerate() {
        let on = mask >> l & 1 == 1;
        lo = lo.min(if on { x } else { u64::MAX });
        hi = hi.max(if on { x } else { 0 });
        or |= if on { x } else { 0 };
    }
    (lo, hi, or)
}

/// [`span`] of 32-bit values.
#[inline]
fn span32(mask: u32, v: &[u32; LANES]) -> (u32, u32, u32) {
    let (mut lo, mut hi, mut or) = (u32::MAX, 0, 0);
    for (l, &x) in v.iter().enumerate() {
        let on = mask >> l & 1 == 1;
        lo = lo.min(if on { x } else { u32::MAX });
        hi = hi.max(if on { x } else { 0 });
        or |= if on { x } else { 0 };
    }
    (lo, hi, or)
}

/// Calls `f` for each lane set in `exec`, lowest first: a plain counted loop when every
/// lane is (the common case), else a walk of the set bits.
#[inline(always)]
fn for_lanes(exec: u32, f: impl FnMut(usize)) {
    if exec == u32::MAX {
        (0..LANES).for_each(f);
    } else {
        Lanes(exec).for_each(f);
    }
}

/// Computes and checks every active lane's access; returns the targets or one fault
/// naming all faulting lanes (kind and address from the lowest one).
fn targets(
    ctx: &Ctx<'_>,
    d: &Decoded,
    mode: AddrMode,
    bytes: u64,
    atomic: bool,
    t: &mut Targets,
) -> Result<(), ExecFault> {
    let i = d.instr;
    let w = &*ctx.wave;
    let exec = w.exec;
    let s1 = w.v[i.rs1 as usize];
    // The decoder already sign-extended imm24.
    let imm = i.imm;
    let align = alignment(bytes, atomic);
    let space = space_of(mode);
    // Only the entries of lanes in the mask are written, and only they are read.
    t.space = space;
    t.mask = exec;
    let mut first: Option<ExecFault> = None;
    let mut fail = |lane: usize, kind: FaultKind, addr: u64| match &mut first {
        Some(f) => f.lanes |= 1 << lane,
        None => {
            first = Some(ExecFault {
                kind,
                lanes: 1 << lane,
                addr: Some(addr),
                len: bytes as u32,
            })
        }
    };
    match mode {
        AddrMode::Global | AddrMode::Ubase | AddrMode::Buf => {
            // Addresses of all lanes at once, then the checks lane by lane.
            match mode {
                AddrMode::Global => {
                    let hi = w.v[i.rs1 as usize + 1];
                    for l in 0..LANES {
                        let base = s1[l] as u64 | (hi[l] as u64) << 32;
                        t.addr[l] = base.wrapping_add(imm as u64);
                    }
                }
                AddrMode::Ubase => {
                    let r = i.rs2 as usize;
                    let base = w.u[r] as u64 | (w.u[r + 1] as u64) << 32;
                    for (a, &x) in t.addr.iter_mut().zip(&s1) {
                        *a = base.wrapping_add(x as u64).wrapping_add(imm as u64);
                    }
                }
                _ => {
                    let r = i.rs2 as usize;
                    let desc =
                        BufferDescriptor::from_dwords([w.u[r], w.u[r + 1], w.u[r + 2], w.u[r + 3]]);
                    for (l, &x) in s1.iter().enumerate() {
                        match desc.check(x as i64 + imm, bytes) {
                            Some(a) => t.addr[l] = a,
                            // Out of bounds or null: reads 0, writes dropped.
                            None => t.mask &= !(1 << l),
                        }
                    }
                }
            }
            // The common case: all lanes aligned and in one allocation (checked on the span
            // of their addresses), so no lane needs a search of its own.
            let (lo, hi, aligned) = if mode == AddrMode::Ubase {
                // The span of the 32-bit offsets, when no lane's address wraps.
                let r = i.rs2 as usize;
                let start = (w.u[r] as u64 | (w.u[r + 1] as u64) << 32) as i128 + imm as i128;
                let (lo, hi, or) = span32(t.mask, &s1);
                let (lo, hi) = (start + lo as i128, start + hi as i128);
                let inside = lo >= 0 && hi <= u64::MAX as i128;
                let aligned = (start as u64 | or as u64) & (align - 1) == 0;
                (lo as u64, hi as u64, inside && aligned)
            } else {
                let (lo, hi, or) = span(t.mask, &t.addr);
                (lo, hi, or & (align - 1) == 0)
            };
            if t.mask != 0 && aligned {
                let mut hint = 0;
                let whole = hi
                    .checked_add(bytes)
                    .and_then(|end| ctx.global.locate_hint(lo, end - lo, &mut hint));
                if let Some((alloc, off)) = whole {
                    let base = lo - off;
                    t.object = [alloc as u32; LANES];
                    for (o, &a) in t.off.iter_mut().zip(&t.addr) {
                        *o = a.wrapping_sub(base);
                    }
                    (t.single, t.lo, t.hi) = (true, off, off + (hi - lo) + bytes);
                    return Ok(());
                }
            }
            let mut hint = 0;
            for l in Lanes(t.mask) {
                let addr = t.addr[l];
                // Alignments are powers of two: a mask, not a division.
                if addr & (align - 1) != 0 {
                    let kind = FaultKind::Misaligned {
                        space,
                        align: align as u32,
                    };
                    fail(l, kind, addr);
                    continue;
                }
                match ctx.global.locate_hint(addr, bytes, &mut hint) {
                    Some((alloc, off)) => {
                        t.object[l] = alloc as u32;
                        t.off[l] = off;
                    }
                    None => fail(l, FaultKind::Unmapped, addr),
                }
            }
        }
        AddrMode::Shared | AddrMode::Scratch => {
            let size = if space == Space::Shared {
                ctx.shared.len()
            } else {
                ctx.scratch_bytes
            };
            // The common case: every lane aligned and inside (checked on the span of the
            // registers' values: offsets are at most 2^32 + 2^23, no overflow), no lane
            // checked alone.
            let (lo, hi, or) = span32(t.mask, &s1);
            let (lo, hi) = (lo as i64 + imm, hi as i64 + imm);
            let aligned = (or as u64 | imm as u64) & (align - 1) == 0;
            if t.mask != 0 && lo >= 0 && hi as u64 + bytes <= size && aligned {
                let offs: [u64; LANES] = std::array::from_fn(|l| (s1[l] as i64 + imm) as u64);
                t.addr = offs;
                if space == Space::Scratch {
                    let sb = ctx.scratch_bytes;
                    // Inactive lanes' offsets may be anything (never read): wrapping.
                    for (l, (o, &a)) in t.off.iter_mut().zip(&offs).enumerate() {
                        *o = (l as u64 * sb).wrapping_add(a);
                    }
                    let (lo, hi, _) = span(t.mask, &t.off);
                    (t.single, t.lo, t.hi) = (true, lo, hi + bytes);
                } else {
                    t.off = offs;
                    (t.single, t.lo, t.hi) = (true, lo as u64, hi as u64 + bytes);
                }
                return Ok(());
            }
            for l in Lanes(t.mask) {
                let off = s1[l] as i64 + imm;
                if off < 0 || off as u64 + bytes > size {
                    fail(l, FaultKind::OutOfWindow { space, size }, off as u64);
                    continue;
                }
                if off as u64 & (align - 1) != 0 {
                    let kind = FaultKind::Misaligned {
                        space,
                        align: align as u32,
                    };
                    fail(l, kind, off as u64);
                    continue;
                }
                t.addr[l] = off as u64;
                t.off[l] = if space == Space::Scratch {
                    l as u64 * ctx.scratch_bytes + off as u64
                } else {
                    off as u64
                };
            }
        }
    }
    match first {
        Some(f) => Err(f),
        None => Ok(()),
    }
}

/// The bytes lane accesses of `t` go to: one allocation, the shared window or the scratch.
fn object<'c>(ctx: &'c Ctx<'_>, t: &Targets, lane: usize) -> Option<&'c PagedBytes> {
    match t.space {
        Space::Global => ctx.global.bytes(t.object[lane] as usize),
        Space::Shared => Some(&*ctx.shared),
        Space::Scratch => Some(&ctx.wave.scratch),
    }
}

/// [`object`], writable.
fn object_mut<'c>(ctx: &'c mut Ctx<'_>, t: &Targets, lane: usize) -> Option<&'c mut PagedBytes> {
    match t.space {
        Space::Global => ctx.global.bytes_mut(t.object[lane] as usize),
        Space::Shared => Some(&mut *ctx.shared),
        Space::Scratch => Some(&mut ctx.wave.scratch),
    }
}

/// One lane's read of `n <= 16` bytes as a little-endian value, recorded when a watchpoint
/// wants it (for an atomic, what it reads is the old value of what it then writes).
fn read(ctx: &mut Ctx<'_>, t: &Targets, lane: usize, n: usize, kind: AccessKind) -> u128 {
    let value = object(ctx, t, lane).map_or(0, |b| b.read_small(t.off[lane], n));
    if ctx.accesses.is_some() {
        let bytes = value.to_le_bytes();
        ctx.record(t.space, t.addr[lane], n as u32, lane, kind, &bytes[..n]);
    }
    value
}

/// Calls `f(lane, value)` with each accessing lane's `n <= 16` bytes, in lane order, each
/// read recorded as [`read`] does. When nothing records and one page holds every lane's
/// bytes, that page is found once and the lanes read it directly.
#[inline(always)]
fn read_lanes(ctx: &mut Ctx<'_>, t: &Placed, n: usize, mut f: impl FnMut(usize, u128)) {
    let t = match t {
        Placed::Page(p) => {
            let Some(page) = page_object(ctx.global, ctx.shared, p.space, p.object)
                .and_then(|b| b.page_of(p.lo, p.hi))
            else {
                return;
            };
            macro_rules! per_size {
                ($($n:literal)*) => {
                    match n {
                        $($n => for_lanes(ctx.wave.exec, |l| {
                            f(l, page.get::<$n>(p.rel[l] as u64))
                        }),)*
                        _ => for_lanes(ctx.wave.exec, |l| {
                            f(l, page.get::<16>(p.rel[l] as u64))
                        }),
                    }
                };
            }
            per_size!(1 2 4 8 12);
            return;
        }
        Placed::Lanes(t) => t,
    };
    if ctx.accesses.is_none() {
        if let Some(page) = t.page(ctx) {
            macro_rules! per_size {
                ($($n:literal)*) => {
                    match n {
                        $($n => for l in t.lanes() {
                            f(l, page.get::<$n>(t.off[l]))
                        },)*
                        _ => for l in t.lanes() {
                            f(l, page.get::<16>(t.off[l]))
                        },
                    }
                };
            }
            per_size!(1 2 4 8 12);
            return;
        }
    }
    for lane in t.lanes() {
        let v = read(ctx, t, lane, n, AccessKind::Read);
        f(lane, v);
    }
}

/// Whether any lane's access touches a watched range (then lanes go one at a time, each
/// recording the bytes it overwrites).
fn any_watched(ctx: &Ctx<'_>, t: &Targets, n: u32) -> bool {
    ctx.accesses.is_some() && t.lanes().any(|l| ctx.watched(t.space, t.addr[l], n))
}

/// Replaces each accessing lane's `n` bytes with `f(lane, old)`, in lane order: one lane at
/// a time, recording the old bytes as a `kind` access (a store's write, an atomic's
/// read-modify-write), when any lane is watched; otherwise lanes are
/// grouped into runs on one memory object, and copy-on-write is paid once per run of
/// lanes on a page ([`PagedBytes::update_run`]).
fn update_lanes(
    ctx: &mut Ctx<'_>,
    t: &Placed,
    n: usize,
    kind: AccessKind,
    mut f: impl FnMut(usize, u128) -> u128,
) {
    let t = match t {
        Placed::Page(p) => {
            let exec = ctx.wave.exec;
            let Some(mut page) = page_object_mut(ctx.global, ctx.shared, p.space, p.object)
                .and_then(|b| b.page_of_mut(p.lo, p.hi))
            else {
                return;
            };
            macro_rules! per_size {
                ($($n:literal)*) => {
                    match n {
                        $($n => for_lanes(exec, |l| {
                            page.update::<$n>(p.rel[l] as u64, |old| f(l, old))
                        }),)*
                        _ => for_lanes(exec, |l| {
                            page.update::<16>(p.rel[l] as u64, |old| f(l, old))
                        }),
                    }
                };
            }
            per_size!(1 2 4 8 12);
            return;
        }
        Placed::Lanes(t) => t,
    };
    if any_watched(ctx, t, n as u32) {
        for lane in t.lanes() {
            let old = read(ctx, t, lane, n, kind);
            let new = f(lane, old).to_le_bytes();
            if let Some(b) = object_mut(ctx, t, lane) {
                b.write(t.off[lane], &new[..n]);
            }
        }
        return;
    }
    // The common case: one page holds every lane's bytes, found (and copied on write)
    // once; lanes then update it directly.
    if let Some(mut page) = t.page_mut(ctx) {
        macro_rules! per_size {
            ($($n:literal)*) => {
                match n {
                    $($n => for l in t.lanes() {
                        page.update::<$n>(t.off[l], |old| f(l, old))
                    },)*
                    _ => for l in t.lanes() {
                        page.update::<16>(t.off[l], |old| f(l, old))
                    },
                }
            };
        }
        per_size!(1 2 4 8 12);
        return;
    }
    let mut lanes = [0usize; LANES];
    let mut offs = [0u64; LANES];
    let mut count = 0;
    let mut run_object = None;
    let mut flush =
        |ctx: &mut Ctx<'_>, count: usize, lanes: &[usize; LANES], offs: &[u64; LANES]| {
            if count > 0 {
                if let Some(b) = object_mut(ctx, t, lanes[0]) {
                    b.update_run(&offs[..count], n, |k, old| f(lanes[k], old));
                }
            }
        };
    for lane in t.lanes() {
        if run_object != Some(t.object[lane]) {
            flush(ctx, count, &lanes, &offs);
            run_object = Some(t.object[lane]);
            count = 0;
        }
        lanes[count] = lane;
        offs[count] = t.off[lane];
        count += 1;
    }
    flush(ctx, count, &lanes, &offs);
}

/// Records every accessing lane of `t` in the sanitizer's trace, when one is on (`data`:
/// the bytes each lane stores). Inlined, so the bare machine (no trace) pays one test,
/// not a call.
#[inline]
fn trace(ctx: &mut Ctx<'_>, t: &Placed, kind: AccessKind, len: u32, data: Option<&[u128; LANES]>) {
    if let Some(tr) = ctx.trace.as_deref_mut() {
        trace_placed(tr, ctx.global, ctx.wave.exec, t, (kind, len), data);
    }
}

/// [`trace`] into `tr` (`exec`: the wave's EXEC).
#[inline(never)]
fn trace_placed(
    tr: &mut MemTrace,
    global: &GlobalMemory,
    exec: u32,
    t: &Placed,
    (kind, len): (AccessKind, u32),
    data: Option<&[u128; LANES]>,
) {
    match t {
        Placed::Page(p) => {
            // A lane's offset in the object: the page's first byte's, plus its place.
            let page = p.lo - p.lo % PAGE as u64;
            let base = object_base(global, p.space, p.object);
            tr.begin(p.space, kind, len);
            push_lanes(&mut tr.entries, exec, |l| {
                let off = page + p.rel[l] as u64;
                TraceEntry {
                    lane: l as u8,
                    addr: base + off,
                    off,
                }
            });
            if let Some(d) = data {
                push_lanes(&mut tr.data, exec, |l| d[l]);
            }
        }
        Placed::Lanes(t) => {
            tr.begin(t.space, kind, len);
            // One pass per vector, each sized up front: the loops only copy.
            push_lanes(&mut tr.entries, t.mask, |l| TraceEntry {
                lane: l as u8,
                addr: t.addr[l],
                off: t.off[l],
            });
            if let Some(d) = data {
                push_lanes(&mut tr.data, t.mask, |l| d[l]);
            }
        }
    }
}

/// Appends `f(lane)` for every lane of `lanes`, in lane order, to `v`. Every lane (the
/// common case) goes through a range, which `extend` sizes once and fills without a
/// capacity test per item; other masks are sized once and written in place, not pushed
/// one by one through [`Lanes`].
#[inline]
fn push_lanes<T: Copy + Default>(v: &mut Vec<T>, lanes: u32, f: impl Fn(usize) -> T) {
    if lanes == u32::MAX {
        v.extend((0..LANES).map(f));
        return;
    }
    let start = v.len();
    v.resize(start + lanes.count_ones() as usize, T::default());
    for (slot, l) in v[start..].iter_mut().zip(Lanes(lanes)) {
        *slot = f(l);
    }
}

/// [`trace`] of a 32-bit access on one or two [`Run`]s: runs, not an entry per lane.
#[inline]
fn trace_runs(ctx: &mut Ctx<'_>, runs: &Runs, kind: AccessKind) {
    if let Some(tr) = ctx.trace.as_deref_mut() {
        trace_runs_into(tr, ctx.global, runs, kind);
    }
}

/// Records a 32-bit access on [`Runs`] (as `kind`) in the trace `tr`, as its runs.
#[inline]
pub(super) fn trace_runs_into(
    tr: &mut MemTrace,
    global: &GlobalMemory,
    (r0, r1): &Runs,
    kind: AccessKind,
) {
    let traced = |r: &Run| TraceRun {
        lanes: r.lanes,
        addr: object_base(global, r.space, r.object) + r.lo,
        off: r.lo,
    };
    tr.begin(r0.space, kind, 4);
    tr.run = Some(traced(r0));
    tr.run2 = r1.as_ref().map(traced);
}

/// The address of byte 0 of `object` of `space` (a global allocation's base; 0 for the
/// shared window, whose addresses are its offsets).
fn object_base(global: &GlobalMemory, space: Space, object: usize) -> u64 {
    match space {
        Space::Global => global.allocations().get(object).map_or(0, |a| a.base),
        _ => 0,
    }
}

pub(super) fn counter_regs(file: RegFile, first: u8, count: u8) -> Option<RegRange> {
    Some(RegRange { file, first, count })
}

pub(super) fn execute(ctx: &mut Ctx<'_>, d: &Decoded, pc: u64) -> Result<Flow, ExecFault> {
    match d.op {
        Op::Load { mode, ty } => {
            let bytes = ty.bytes as u64;
            if bytes == 4 {
                if let Some(runs) = run32(ctx, d, mode) {
                    load_runs(ctx, &runs, d.instr.rd as usize);
                    trace_runs(ctx, &runs, AccessKind::Read);
                    let regs = counter_regs(RegFile::Vector, d.instr.rd, 1);
                    ctx.issue(d, pc, regs);
                    return Ok(Flow::Next);
                }
            }
            let t = place(ctx, d, mode, bytes, false)?;
            let dwords = (ty.bytes as usize).div_ceil(4);
            let n = bytes as usize;
            let (rd, exec) = (d.instr.rd as usize, ctx.wave.exec);
            // One loop per width and signedness: no choice per lane.
            if n <= 4 {
                let mut out = [0u32; LANES];
                match (ty.bytes, ty.signed) {
                    (1, true) => read_lanes(ctx, &t, n, |l, raw| {
                        out[l] = raw as u8 as i8 as i32 as u32;
                    }),
                    (2, true) => read_lanes(ctx, &t, n, |l, raw| {
                        out[l] = raw as u16 as i16 as i32 as u32;
                    }),
                    _ => read_lanes(ctx, &t, n, |l, raw| out[l] = raw as u32),
                }
                trace(ctx, &t, AccessKind::Read, ty.bytes as u32, None);
                merge(&mut ctx.wave.v[rd], &out, exec);
            } else {
                let mut out = [[0u32; LANES]; 4];
                read_lanes(ctx, &t, n, |l, raw| {
                    for (k, o) in out.iter_mut().enumerate().take(dwords) {
                        o[l] = (raw >> (32 * k)) as u32;
                    }
                });
                trace(ctx, &t, AccessKind::Read, ty.bytes as u32, None);
                for (k, o) in out.iter().enumerate().take(dwords) {
                    merge(&mut ctx.wave.v[rd + k], o, exec);
                }
            }
            ctx.issue(d, pc, counter_regs(RegFile::Vector, rd as u8, dwords as u8));
        }
        Op::Store { mode, bytes } => {
            if bytes == 4 {
                // Runs that meet go lane by lane ([`runs_meet`]).
                let runs = run32(ctx, d, mode).filter(|runs| !runs_meet(runs));
                if let Some(runs) = runs {
                    store_runs(ctx, &runs, d.instr.rd as usize);
                    trace_runs(ctx, &runs, AccessKind::Write);
                    ctx.issue(d, pc, None);
                    return Ok(Flow::Next);
                }
            }
            let t = place(ctx, d, mode, bytes as u64, false)?;
            let rd = d.instr.rd as usize;
            if let (Placed::Page(p), 1 | 2 | 4) = (&t, bytes) {
                // One page, one register of data: each lane's bytes written directly.
                let (exec, data) = (ctx.wave.exec, ctx.wave.v[rd]);
                if let Some(mut page) = page_object_mut(ctx.global, ctx.shared, p.space, p.object)
                    .and_then(|b| b.page_of_mut(p.lo, p.hi))
                {
                    match bytes {
                        1 => for_lanes(exec, |l| page.set::<1>(p.rel[l] as u64, data[l])),
                        2 => for_lanes(exec, |l| page.set::<2>(p.rel[l] as u64, data[l])),
                        _ => for_lanes(exec, |l| page.set::<4>(p.rel[l] as u64, data[l])),
                    }
                }
                if ctx.trace.is_some() {
                    let data = data.map(u128::from);
                    trace(ctx, &t, AccessKind::Write, bytes as u32, Some(&data));
                }
                ctx.issue(d, pc, None);
                return Ok(Flow::Next);
            }
            let mut data = [0u128; LANES];
            for (lane, x) in data.iter_mut().enumerate() {
                *x = ctx.wave.v[rd][lane] as u128;
            }
            for k in 1..(bytes as usize).div_ceil(4) {
                let reg = ctx.wave.v[rd + k];
                for (lane, x) in data.iter_mut().enumerate() {
                    *x |= (reg[lane] as u128) << (32 * k);
                }
            }
            update_lanes(ctx, &t, bytes as usize, AccessKind::Write, |lane, _| {
                data[lane]
            });
            trace(ctx, &t, AccessKind::Write, bytes as u32, Some(&data));
            ctx.issue(d, pc, None);
        }
        Op::Atomic {
            mode,
            op,
            wide,
            rtn,
        } => {
            let bytes = if wide { 8 } else { 4 };
            let rd = d.instr.rd as usize;
            if !wide {
                if let Some(runs) = run32(ctx, d, mode) {
                    let (old, lanes) = atomic_runs(ctx, &runs, rd, op);
                    trace_runs(ctx, &runs, AccessKind::ReadWrite);
                    if rtn {
                        put(&mut ctx.wave.v[rd], &old, lanes);
                        ctx.issue(d, pc, counter_regs(RegFile::Vector, rd as u8, 1));
                    } else {
                        ctx.issue(d, pc, None);
                    }
                    return Ok(Flow::Next);
                }
            }
            let t = place(ctx, d, mode, bytes, true)?;
            if let (Placed::Page(p), false) = (&t, wide) {
                // One page, 32-bit: each lane's read-modify-write on the page, in lane
                // order, with the operation and width fixed for the whole loop.
                let (exec, data) = (ctx.wave.exec, ctx.wave.v[rd]);
                let swap = match op {
                    AtomOp::CmpXchg => ctx.wave.v[rd + 1],
                    _ => [0; LANES],
                };
                let mut old_out = [0u32; LANES];
                if let Some(mut page) = page_object_mut(ctx.global, ctx.shared, p.space, p.object)
                    .and_then(|b| b.page_of_mut(p.lo, p.hi))
                {
                    // Every active lane on one word (inactive lanes' places are an active
                    // lane's): the word is read once, the lanes fold into it in lane
                    // order, each seeing the value the lanes below it left, and it is
                    // written once.
                    let rel0 = p.rel[0];
                    let one_word = p.rel.iter().fold(0, |acc, &r| acc | (r ^ rel0)) == 0;
                    macro_rules! per_op {
                        ($($o:ident)*) => {
                            match op {
                                $(AtomOp::$o if one_word => {
                                    page.update::<4>(rel0 as u64, |word| {
                                        let mut v = word as u64;
                                        for_lanes(exec, |l| {
                                            old_out[l] = v as u32;
                                            let (x, y) = (data[l] as u64, swap[l] as u64);
                                            v = atomic(AtomOp::$o, false, v, x, y);
                                        });
                                        v as u128
                                    })
                                })*
                                $(AtomOp::$o => for_lanes(exec, |l| {
                                    page.update::<4>(p.rel[l] as u64, |old| {
                                        old_out[l] = old as u32;
                                        let (x, y) = (data[l] as u64, swap[l] as u64);
                                        atomic(AtomOp::$o, false, old as u64, x, y) as u128
                                    })
                                }),)*
                            }
                        };
                    }
                    per_op!(Add Sub And Or Xor MinS MaxS MinU MaxU Xchg CmpXchg Inc Dec FAdd FMin FMax);
                }
                trace(ctx, &t, AccessKind::ReadWrite, bytes as u32, None);
                if rtn {
                    put(&mut ctx.wave.v[rd], &old_out, exec);
                    ctx.issue(d, pc, counter_regs(RegFile::Vector, rd as u8, 1));
                } else {
                    ctx.issue(d, pc, None);
                }
                return Ok(Flow::Next);
            }
            let words = if wide { 2 } else { 1 };
            let mut old_out = [[0u32; LANES]; 2];
            // Data (and compare-exchange's second operand): low and high words per lane.
            let zero = [0u32; LANES];
            let reg = |k: usize| ctx.wave.v[rd + k];
            let (d_lo, d_hi) = (reg(0), if wide { reg(1) } else { zero });
            let (c_lo, c_hi) = match (op, wide) {
                (AtomOp::CmpXchg, true) => (reg(2), reg(3)),
                (AtomOp::CmpXchg, false) => (reg(1), zero),
                _ => (zero, zero),
            };
            let pair = |lo: &[u32; LANES], hi: &[u32; LANES], l: usize| {
                lo[l] as u64 | (hi[l] as u64) << 32
            };
            // One loop per operation: the operation folds into `atomic`, no switch per lane.
            macro_rules! per_op {
                ($($o:ident)*) => {
                    match op {
                        $(AtomOp::$o => {
                            // The read is recorded (with the old bytes) when a watchpoint wants it.
                            update_lanes(ctx, &t, bytes as usize, AccessKind::ReadWrite, |lane, old| {
                                let old = old as u64;
                                old_out[0][lane] = old as u32;
                                old_out[1][lane] = (old >> 32) as u32;
                                let data0 = pair(&d_lo, &d_hi, lane);
                                atomic(AtomOp::$o, wide, old, data0, pair(&c_lo, &c_hi, lane)) as u128
                            })
                        })*
                    }
                };
            }
            per_op!(Add Sub And Or Xor MinS MaxS MinU MaxU Xchg CmpXchg Inc Dec FAdd FMin FMax);
            trace(ctx, &t, AccessKind::ReadWrite, bytes as u32, None);
            if rtn {
                let exec = ctx.wave.exec;
                for (k, o) in old_out.iter().enumerate().take(words) {
                    merge(&mut ctx.wave.v[rd + k], o, exec);
                }
                ctx.issue(d, pc, counter_regs(RegFile::Vector, rd as u8, words as u8));
            } else {
                ctx.issue(d, pc, None);
            }
        }
        Op::Uld { mode, dwords } => uld(ctx, d, pc, mode, dwords)?,
        _ => {
            return Err(ExecFault::plain(FaultKind::IllegalInstruction {
                reason: format!("no memory semantics for {}", d.instr.def().mnemonic()),
            }))
        }
    }
    Ok(Flow::Next)
}

/// The one or two [`Run`]s of a 32-bit access ([`RunPlace::runs`]), taken in order.
pub(super) type Runs = (Run, Option<Run>);

/// Whether two runs have bytes in common: lanes of a store on them may write one word,
/// which the sanitizer's same-instruction check needs each lane's entry and data for, so
/// such a store is not traced as runs.
#[inline(always)]
pub(super) fn runs_meet((r0, r1): &Runs) -> bool {
    r1.as_ref().is_some_and(|r1| !r0.disjoint(r1))
}

/// A load of one word per lane from [`Runs`] into `v[rd]`: one copy per run.
#[inline(always)]
fn load_runs(ctx: &mut Ctx<'_>, runs: &Runs, rd: usize) {
    load_runs_into(ctx.global, ctx.shared, runs, &mut ctx.wave.v[rd]);
}

/// [`load_runs`] on memory `global` and `shared`, into the runs' lanes of `dst`.
#[inline(always)]
pub(super) fn load_runs_into(
    global: &GlobalMemory,
    shared: &PagedBytes,
    (r0, r1): &Runs,
    dst: &mut [u32; LANES],
) {
    for r in std::iter::once(r0).chain(r1) {
        load_run_into(global, shared, r, dst);
    }
}

/// One run of [`load_runs_into`].
#[inline(always)]
fn load_run_into(global: &GlobalMemory, shared: &PagedBytes, r: &Run, dst: &mut [u32; LANES]) {
    let mut out = [0u32; LANES];
    if let Some(page) =
        page_object(global, shared, r.space, r.object).and_then(|b| b.page_of(r.lo, r.hi))
    {
        page.words(r.lo, &mut out[r.span()]);
    }
    put(dst, &out, r.lanes);
}

/// A store of each active lane's `v[rd]` to [`Runs`], in order: one copy per run when the
/// lanes from its first to its last are all on it.
#[inline(always)]
fn store_runs(ctx: &mut Ctx<'_>, runs: &Runs, rd: usize) {
    store_runs_from(ctx.global, ctx.shared, runs, &ctx.wave.v[rd]);
}

/// [`store_runs`] of the runs' lanes of `data` to memory `global` and `shared`.
#[inline(always)]
pub(super) fn store_runs_from(
    global: &mut GlobalMemory,
    shared: &mut PagedBytes,
    (r0, r1): &Runs,
    data: &[u32; LANES],
) {
    for r in std::iter::once(r0).chain(r1) {
        store_run_from(global, shared, r, data);
    }
}

/// One run of [`store_runs_from`].
#[inline(always)]
fn store_run_from(
    global: &mut GlobalMemory,
    shared: &mut PagedBytes,
    r: &Run,
    data: &[u32; LANES],
) {
    if let Some(mut page) =
        page_object_mut(global, shared, r.space, r.object).and_then(|b| b.page_of_mut(r.lo, r.hi))
    {
        page.set_words(r.lo, &data[r.span()], r.mask());
    }
}

/// A 32-bit atomic on [`Runs`] with data `v[rd]` (and `v[rd + 1]` for compare-exchange):
/// see [`atomic_runs_on`].
#[inline(always)]
fn atomic_runs(ctx: &mut Ctx<'_>, runs: &Runs, rd: usize, op: AtomOp) -> ([u32; LANES], u32) {
    let w = &*ctx.wave;
    let zero = [0u32; LANES];
    let swap = match op {
        AtomOp::CmpXchg => &w.v[rd + 1],
        _ => &zero,
    };
    atomic_runs_on(ctx.global, ctx.shared, runs, op, &w.v[rd], swap)
}

/// A 32-bit atomic on [`Runs`] with the runs' lanes of data `data` (and compare-exchange's
/// new values `swap`), on memory `global` and `shared`: run by run, in order, so lanes of
/// the second run see what the first left on words they share; both runs read their data
/// before any old value is returned. Returns the words read (the old values) and the
/// lanes they are for.
#[inline(always)]
pub(super) fn atomic_runs_on(
    global: &mut GlobalMemory,
    shared: &mut PagedBytes,
    (r0, r1): &Runs,
    op: AtomOp,
    data: &[u32; LANES],
    swap: &[u32; LANES],
) -> ([u32; LANES], u32) {
    let mut old = [0u32; LANES];
    atomic_run_on(global, shared, r0, op, (data, swap), &mut old);
    let mut lanes = r0.lanes;
    if let Some(r1) = r1 {
        // Its lanes are all above the first run's: their places in `old` are its own.
        atomic_run_on(global, shared, r1, op, (data, swap), &mut old);
        lanes |= r1.lanes;
    }
    (old, lanes)
}

/// One run of [`atomic_runs_on`] (every lane its own word, so lane order does not matter
/// within it): the words read at once (into the run's lanes of `old`, from its lowest to
/// its highest), the operation applied to all lanes in one loop, the run's results
/// written at once.
#[inline(always)]
fn atomic_run_on(
    global: &mut GlobalMemory,
    shared: &mut PagedBytes,
    r: &Run,
    op: AtomOp,
    (data, swap): (&[u32; LANES], &[u32; LANES]),
    old: &mut [u32; LANES],
) {
    let Some(mut page) =
        page_object_mut(global, shared, r.space, r.object).and_then(|b| b.page_of_mut(r.lo, r.hi))
    else {
        return;
    };
    page.words(r.lo, &mut old[r.span()]);
    let mut new = [0u32; LANES];
    // One loop per operation: the operation folds into `atomic`, no switch per lane.
    macro_rules! per_op {
        ($($o:ident)*) => {
            match op {
                $(AtomOp::$o => {
                    for l in 0..LANES {
                        let (x, y) = (data[l] as u64, swap[l] as u64);
                        new[l] = atomic(AtomOp::$o, false, old[l] as u64, x, y) as u32;
                    }
                })*
            }
        };
    }
    per_op!(Add Sub And Or Xor MinS MaxS MinU MaxU Xchg CmpXchg Inc Dec FAdd FMin FMax);
    page.set_words(r.lo, &new[r.span()], r.mask());
}

/// One atomic read-modify-write: the new memory value from the old one and `data`
/// (`data1`: compare-exchange's new value, else unused); all masked to 32 bits unless `wide`.
#[inline(always)]
pub fn atomic(op: AtomOp, wide: bool, old: u64, data: u64, data1: u64) -> u64 {
    let mask = if wide { u64::MAX } else { 0xffff_ffff };
    let (o, v) = (old & mask, data & mask);
    let signed = |x: u64| {
        if wide {
            x as i64
        } else {
            x as u32 as i32 as i64
        }
    };
    let r = match op {
        AtomOp::Add => o.wrapping_add(v),
        AtomOp::Sub => o.wrapping_sub(v),
        AtomOp::And => o & v,
        AtomOp::Or => o | v,
        AtomOp::Xor => o ^ v,
        AtomOp::MinS => {
            if signed(v) < signed(o) {
                v
            } else {
                o
            }
        }
        AtomOp::MaxS => {
            if signed(v) > signed(o) {
                v
            } else {
                o
            }
        }
        AtomOp::MinU => o.min(v),
        AtomOp::MaxU => o.max(v),
        AtomOp::Xchg => v,
        AtomOp::CmpXchg => {
            if o == v {
                data1 & mask
            } else {
                o
            }
        }
        AtomOp::Inc => {
            if o >= v {
                0
            } else {
                o + 1
            }
        }
        AtomOp::Dec => {
            if o == 0 || o > v {
                v
            } else {
                o - 1
            }
        }
        AtomOp::FAdd => {
            super::alu::canon(f32::from_bits(o as u32) + f32::from_bits(v as u32)) as u64
        }
        AtomOp::FMin => min_number(o as u32, v as u32) as u64,
        AtomOp::FMax => max_number(o as u32, v as u32) as u64,
    };
    r & mask
}

/// Uniform loads: ignore EXEC, read `dwords` dwords into `u[rd..]`. Buffer forms check
/// bounds per dword: out-of-bounds dwords (or all, for a null descriptor) read 0.
fn uld(
    ctx: &mut Ctx<'_>,
    d: &Decoded,
    pc: u64,
    mode: UldMode,
    dwords: u8,
) -> Result<(), ExecFault> {
    let i = d.instr;
    let w = &*ctx.wave;
    let r = i.rs1 as usize;
    let index = match mode {
        UldMode::Indexed | UldMode::BufIndexed => w.u[i.rs2 as usize] as u64,
        _ => 0,
    };
    let n = dwords as usize;
    let mut vals = [0u32; 16];
    let fault = |kind: FaultKind, addr: u64| ExecFault {
        kind,
        lanes: 0,
        addr: Some(addr),
        len: 4 * dwords as u32,
    };
    let misaligned = |addr: u64| {
        fault(
            FaultKind::Misaligned {
                space: Space::Global,
                align: 4,
            },
            addr,
        )
    };
    match mode {
        UldMode::Plain | UldMode::Indexed => {
            let base = w.u[r] as u64 | (w.u[r + 1] as u64) << 32;
            let addr = base.wrapping_add(index).wrapping_add(i.imm as u64);
            if !addr.is_multiple_of(4) {
                return Err(misaligned(addr));
            }
            let mut buf = [0u8; 64];
            ctx.global
                .read(addr, &mut buf[..4 * n])
                .ok_or_else(|| fault(FaultKind::Unmapped, addr))?;
            for (k, v) in vals.iter_mut().enumerate().take(n) {
                *v = u32::from_le_bytes([
                    buf[4 * k],
                    buf[4 * k + 1],
                    buf[4 * k + 2],
                    buf[4 * k + 3],
                ]);
            }
            ctx.record(Space::Global, addr, 4 * n as u32, 0, AccessKind::Read, &[]);
            if let Some(tr) = ctx.trace.as_deref_mut() {
                tr.begin(Space::Global, AccessKind::Read, 4 * n as u32);
                tr.push_uniform(addr);
            }
        }
        UldMode::Buf | UldMode::BufIndexed => {
            let desc = BufferDescriptor::from_dwords([w.u[r], w.u[r + 1], w.u[r + 2], w.u[r + 3]]);
            let off = index as i64 + i.imm;
            if let Some(tr) = ctx.trace.as_deref_mut() {
                tr.begin(Space::Global, AccessKind::Read, 4);
            }
            for (k, v) in vals.iter_mut().enumerate().take(n) {
                if let Some(addr) = desc.check(off + 4 * k as i64, 4) {
                    if !addr.is_multiple_of(4) {
                        return Err(misaligned(addr));
                    }
                    let word = ctx
                        .global
                        .read_le(addr, 4)
                        .ok_or_else(|| fault(FaultKind::Unmapped, addr))?;
                    *v = word as u32;
                    ctx.record(Space::Global, addr, 4, 0, AccessKind::Read, &[]);
                    if let Some(tr) = ctx.trace.as_deref_mut() {
                        tr.push_uniform(addr);
                    }
                }
            }
        }
    }
    let rd = i.rd as usize;
    ctx.wave.u[rd..rd + n].copy_from_slice(&vals[..n]);
    ctx.issue(d, pc, counter_regs(RegFile::Uniform, rd as u8, dwords));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `push_lanes` appends what pushing each lane of the mask in order appends, after
    /// what the vector held, for every lane, none, and masks with gaps.
    #[test]
    fn push_lanes_appends_each_lane_in_order() {
        let mut seed = 0x9e37_79b9_u32;
        let mut masks = vec![0, u32::MAX, 1, 1 << 31, u32::MAX - 1, 0x5555_5555];
        for _ in 0..200 {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            masks.push(seed);
        }
        for (k, &mask) in masks.iter().enumerate() {
            let f = |l: usize| (l as u64) << 8 | k as u64;
            let mut v: Vec<u64> = vec![7; k % 3];
            let mut expect = v.clone();
            expect.extend(Lanes(mask).map(f));
            push_lanes(&mut v, mask, f);
            assert_eq!(v, expect, "mask {mask:#x}");
        }
    }
}
