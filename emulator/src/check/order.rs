//! Release/acquire through atomics (docs/memory.md): the happens-before order the races
//! detector consults when barriers leave two accesses of global memory unordered.
//!
//! A wave's plain global accesses fall in *generations*, numbered from 0: a new one starts
//! at each atomic and barrier of the wave that follows plain accesses. A record in the
//! race shadow carries the generation of its access (modulo 2^11; rebuilt from the wave's
//! current one). At a global atomic, the wave *releases* the generations whose stores
//! (`vst` counter) and loads (`vm` counter) have all retired: the counters retire in
//! issue order, so an access is retired when the wave's issues on its counter, minus what
//! is outstanding, exceed its own issue number. The atomic's address keeps a sparse
//! vector clock: for each wave, how far it released, and the atomic that did. An atomic
//! of another wave on that address is noted with its number among the launch's atomics;
//! an acquire fence (`cache.inv.l1`, `cache.inv.l2`) issued after it takes the
//! address's clock as that atomic read it (each address keeps what its last atomics
//! changed, to take them back), not as it is at the fence: a release made after the
//! atomic read the address is not acquired by it. The fence joins those clocks into what
//! the wave knows once it retires (`wait.vm`, `wait.all`; loads issued
//! behind the fence on the in-order `vm` counter are ordered at once). A barrier joins
//! what the waves of its workgroup know and have released, and the atomics they read, so
//! one wave's atomic releases what its workgroup retired before the barrier and another
//! wave's fence acquires what one wave's atomic read.
//!
//! Everything here is off (and costs nothing) for code without global atomics.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::hash::BuildHasherDefault;
use std::sync::Arc;

use super::held::{Held, Owner};
use super::shadow::{Groups, PageHasher, Ref, GEN_BITS};
use super::{FenceAtomic, MemAccess, MissingFence};
use crate::code::{CodeWord, Decoded};
use crate::isa::op::AddrMode;
use crate::isa::{Counter, Op};
use crate::trace::MemTrace;
use crate::wave::{Wave, LANES};

/// The most waves one clock (an address's, or a wave's knowledge) holds; a wave past it is
/// not added, so accesses it released are reported as races (docs/sanitizer.md).
pub(super) const CLOCK_MAX: usize = 1 << 16;
/// The most addresses a wave's atomics wait for an acquire on (the oldest is dropped).
pub(super) const PENDING_MAX: usize = 32;
/// The most changes of an address's clock kept to take back (the oldest is dropped): a
/// fence whose atomic read the address more changes ago than this takes the clock as it
/// is at the fence (docs/sanitizer.md).
pub(super) const UNDO_MAX: usize = 1024;

/// How far one wave's accesses are released: generations below `stores` for its plain
/// stores, below `loads` for its plain loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Released {
    stores: u32,
    loads: u32,
    /// The generation of the release (the atomic's own, or the barrier's): accesses of
    /// earlier generations came before it.
    at: u32,
    /// The atomic that published it, (PC, wave) (`None`: learnt at a barrier, not yet
    /// published).
    atomic: Option<(u64, u32)>,
}

impl Released {
    /// Whether an access of generation `gen`, of kind `access`, is released.
    fn covers(&self, gen: u32, access: MemAccess) -> bool {
        match access {
            MemAccess::Write => gen < self.stores,
            MemAccess::Read => gen < self.loads,
            MemAccess::Atomic => gen < self.stores.min(self.loads),
        }
    }

    fn join(&mut self, o: Released) {
        if o.stores > self.stores || o.loads > self.loads || self.atomic.is_none() {
            self.atomic = o.atomic.or(self.atomic);
        }
        self.stores = self.stores.max(o.stores);
        self.loads = self.loads.max(o.loads);
        self.at = self.at.max(o.at);
    }

    /// Whether it was made in a generation after `gen` (after the accesses of `gen`).
    fn after(&self, gen: u32) -> bool {
        self.at > gen
    }
}

/// A sparse vector clock: per global wave id, how far that wave is released. Sorted by
/// wave id: most clocks name a few waves, which a vector holds in one allocation and
/// searches faster than a hash table; joins of large clocks merge in one pass.
#[derive(Debug, Clone, Default)]
struct Clock(Vec<(u32, Released)>);

impl Clock {
    /// How far wave `w` is released.
    #[inline]
    fn get(&self, w: u32) -> Option<&Released> {
        let i = self.0.binary_search_by_key(&w, |e| e.0).ok()?;
        Some(&self.0[i].1)
    }

    fn len(&self) -> usize {
        self.0.len()
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn iter(&self) -> impl Iterator<Item = (u32, Released)> + '_ {
        self.0.iter().copied()
    }

    /// Joins wave `w`'s `r` in (a clock holds at most [`CLOCK_MAX`] waves).
    fn put(&mut self, w: u32, r: Released) {
        self.put_changed(w, r);
    }

    /// [`Clock::put`], returning wave `w`'s entry before it when the join changed it
    /// (`Some(None)`: it had none): one search where a `get` before and after took three.
    #[inline]
    fn put_changed(&mut self, w: u32, r: Released) -> Option<Option<Released>> {
        match self.0.binary_search_by_key(&w, |e| e.0) {
            Ok(i) => {
                let e = &mut self.0[i].1;
                let before = *e;
                e.join(r);
                (*e != before).then_some(Some(before))
            }
            Err(i) if self.0.len() < CLOCK_MAX => {
                self.0.insert(i, (w, r));
                Some(None)
            }
            Err(_) => None,
        }
    }

    /// Joins `from` in, skipping wave `skip`.
    fn join(&mut self, from: &Clock, skip: u32) {
        if from.len() <= 8 {
            for (w, r) in from.iter() {
                if w != skip {
                    self.put(w, r);
                }
            }
            return;
        }
        let mut out = Vec::with_capacity(self.len() + from.len());
        let (a, b) = (&self.0, &from.0);
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            let next = match (a.get(i), b.get(j)) {
                (Some(&x), Some(&y)) if x.0 == y.0 => {
                    i += 1;
                    j += 1;
                    let mut x = x;
                    if y.0 != skip {
                        x.1.join(y.1);
                    }
                    x
                }
                (Some(&x), Some(y)) if x.0 < y.0 => {
                    i += 1;
                    x
                }
                (Some(&x), None) => {
                    i += 1;
                    x
                }
                (_, Some(&y)) => {
                    j += 1;
                    if y.0 == skip {
                        continue;
                    }
                    y
                }
                (None, None) => break,
            };
            if out.len() < CLOCK_MAX {
                out.push(next);
            }
        }
        self.0 = out;
    }
}

/// What an address's atomics released: each wave's own releases, and what those waves
/// had learnt (at barriers or by acquiring) when they published it, shared rather than
/// copied into every address a wave's atomic touches, with the publishing atomic's PC.
///
/// Each part is kept as of an atomic, by its number among the order's atomics (`at`, from 1,
/// ascending on each address; `u64::MAX`: as it is now), which is what an atomic read: the
/// carried clocks with the number of their atomic, the changes of `own` with what they
/// replaced.
#[derive(Debug, Clone, Default)]
struct AddrClock {
    own: Clock,
    /// (the clock, its atomic's (PC, wave), the number of the atomic it came with), in
    /// number order.
    carried: Vec<(Arc<Clock>, (u64, u32), u64)>,
    /// The number of the last atomic applied to the address (0: none).
    atomics: u64,
    /// The last [`UNDO_MAX`] changes of `own`, oldest first: (the atomic's number, wave,
    /// its entry before; `None`: it had none).
    undo: VecDeque<(u64, u32, Option<Released>)>,
}

impl AddrClock {
    /// The atomic number `at` (above every one applied here), of wave `w` at `pc`,
    /// releases `r` here, publishing what the wave learnt (`known`).
    fn apply(&mut self, w: u32, r: Released, known: Option<&Arc<Clock>>, (pc, at): (u64, u64)) {
        self.atomics = at;
        if let Some(before) = self.own.put_changed(w, r) {
            // A view as of an atomic before the oldest change kept holds the dropped ones.
            if self.undo.len() >= UNDO_MAX {
                self.undo.pop_front();
            }
            self.undo.push_back((at, w, before));
        }
        if let Some(k) = known {
            let carried = self.carried.iter().any(|(c, _, _)| Arc::ptr_eq(c, k));
            if !carried && self.carried.len() < CLOCK_MAX {
                self.carried.push((Arc::clone(k), (pc, w), at));
            }
        }
    }

    /// The carried clocks as of atomic `at`.
    fn carried_at(&self, at: u64) -> &[(Arc<Clock>, (u64, u32), u64)] {
        &self.carried[..self.carried.partition_point(|c| c.2 <= at)]
    }

    /// How far wave `w` is released through this address, as of atomic `at`.
    fn get(&self, w: u32, at: u64) -> Option<Released> {
        let mut found = self.own.get(w).copied();
        if at < self.atomics {
            // Newest first: the last taken back is the first change after `at`.
            for &(n, x, before) in self.undo.iter().rev() {
                if n <= at {
                    break;
                }
                if x == w {
                    found = before;
                }
            }
        }
        for (c, by, _) in self.carried_at(at) {
            if let Some(&r) = c.get(w) {
                let r = Released {
                    atomic: r.atomic.or(Some(*by)),
                    ..r
                };
                match &mut found {
                    Some(x) => x.join(r),
                    None => found = Some(r),
                }
            }
        }
        found
    }

    /// The first atomic on this address after atomic `at` that released an access of wave
    /// `w` which `covers` accepts, (PC, wave): wave `w`'s own, or one carrying what its
    /// wave learnt.
    fn released_after(
        &self,
        w: u32,
        at: u64,
        covers: impl Fn(&Released) -> bool,
    ) -> Option<(u64, u32)> {
        // Wave `w`'s own entry, when it changed after `at` and covers now: (the number of
        // its first change after `at`, its atomic).
        let own = self.own.get(w).filter(|r| covers(r)).and_then(|r| {
            let (n, _, _) = self.undo.iter().find(|&&(n, x, _)| n > at && x == w)?;
            Some((*n, r.atomic?))
        });
        let carried = self.carried[self.carried_at(at).len()..]
            .iter()
            .find(|(c, _, _)| c.get(w).is_some_and(&covers))
            .map(|&(_, by, n)| (n, by));
        // The earlier of the two.
        match (own, carried) {
            (Some(a), Some(b)) => Some(if b.0 < a.0 { b.1 } else { a.1 }),
            (a, b) => a.or(b).map(|(_, by)| by),
        }
    }

    /// Joins everything it held as of atomic `at` into `into`, skipping wave `skip`.
    fn join_into(&self, into: &mut Clock, skip: u32, at: u64) {
        if at >= self.atomics {
            into.join(&self.own, skip);
        } else {
            // The entries changed after `at` taken back, newest change first, so each
            // ends as it was before its first change (`None`: it had no entry then). Every
            // wave an undo entry names has an entry now: entries are never removed.
            let mut then: Vec<(u32, Option<Released>)> =
                self.own.iter().map(|(x, r)| (x, Some(r))).collect();
            for &(n, x, before) in self.undo.iter().rev() {
                if n <= at {
                    break;
                }
                if let Ok(i) = then.binary_search_by_key(&x, |e| e.0) {
                    then[i].1 = before;
                }
            }
            let then = then.into_iter().filter_map(|(x, r)| Some((x, r?)));
            into.join(&Clock(then.collect()), skip);
        }
        for (c, by, _) in self.carried_at(at) {
            for (w, r) in c.iter() {
                if w != skip {
                    let atomic = r.atomic.or(Some(*by));
                    into.put(w, Released { atomic, ..r });
                }
            }
        }
    }

    /// Back to empty, keeping its vectors' capacity.
    fn clear(&mut self) {
        self.own.0.clear();
        self.carried.clear();
        self.atomics = 0;
        self.undo.clear();
    }
}

/// An atomic of a wave that no acquire fence has followed yet.
#[derive(Debug, Clone, Copy)]
struct Pending {
    /// The word it touched, its PC and the wave that executed it (a barrier passes it on
    /// to the other waves of the workgroup).
    addr: u64,
    pc: u64,
    wave: u32,
    /// The atomic's number: the word's clock as of it is what the atomic read (its own
    /// release included, which every use skips).
    at: u64,
}

impl Pending {
    /// How far wave `w` is released through what the atomic read.
    fn get(&self, addrs: &AddrClocks, w: u32) -> Option<Released> {
        addrs.get(&self.addr)?.get(w, self.at)
    }
}

/// The clock of each address an atomic touched (shared between snapshots until written).
type AddrClocks = HashMap<u64, Held<AddrClock>, BuildHasherDefault<PageHasher>>;

/// A generation some of whose plain accesses may still be outstanding: the wave's issue
/// counts (`vst`, `vm`) just after its last plain store and load (0: none).
#[derive(Debug, Clone, Copy)]
struct Open {
    gen: u32,
    stores: u64,
    loads: u64,
}

/// An acquire fence not yet retired: its `vm` issue count, its PC, the address clocks it
/// takes (joined when it was issued, shared with the waves a barrier shows it to) and the
/// atomics they came from.
#[derive(Debug, Clone)]
struct Fence {
    index: u64,
    pc: u64,
    clock: Arc<Clock>,
    atomics: Vec<Pending>,
}

/// An acquire fence another wave of the workgroup (`wave`) had not retired when it passed
/// the barrier at `barrier` (its PC): the barrier does not pass on what the fence takes,
/// which only names the missing retirement when a race is reported.
#[derive(Debug, Clone)]
struct LateFence {
    pc: u64,
    wave: u32,
    barrier: u64,
    clock: Arc<Clock>,
}

/// One wave's part in the order.
#[derive(Debug, Clone, Default)]
struct WaveOrder {
    /// Its current generation, and whether plain accesses were made in it.
    gen: u32,
    dirty: bool,
    /// Operations issued on the `vst` and `vm` counters since it was first seen.
    issued: [u64; 2],
    /// Generations that may hold outstanding plain accesses, oldest first.
    open: VecDeque<Open>,
    /// What it acquired (or learnt at barriers) of other waves.
    known: Arc<Clock>,
    /// Its global atomics no acquire fence followed yet, oldest first, one per word.
    pending: Vec<Pending>,
    /// Its acquire fences not yet retired.
    fences: Vec<Fence>,
    /// The acquire fences the waves of its workgroup had not retired at its last barrier.
    late_fences: Vec<LateFence>,
    /// The atomics its retired fences acquired through, the last [`PENDING_MAX`]: only to
    /// tell a race whose release came after them.
    acquired: Vec<Pending>,
}

impl WaveOrder {
    /// Back to a wave not seen yet, keeping its vectors' capacity.
    fn clear(&mut self) {
        self.gen = 0;
        self.dirty = false;
        self.issued = [0; 2];
        self.open.clear();
        match Arc::get_mut(&mut self.known) {
            Some(k) => k.0.clear(),
            None => self.known = Arc::default(),
        }
        self.pending.clear();
        self.fences.clear();
        self.late_fences.clear();
        self.acquired.clear();
    }

    /// Operations of `wave` retired on `vst` and `vm` (the counters retire in order).
    fn retired(&self, wave: &Wave) -> [u64; 2] {
        let out = |c: Counter| wave.outstanding[c.index()].len() as u64;
        [
            self.issued[0].saturating_sub(out(Counter::Vst)),
            self.issued[1].saturating_sub(out(Counter::Vm)),
        ]
    }

    /// Applies its fences that `wave` retired: what they took is known from now on.
    fn retire_fences(&mut self, wave: &Wave) {
        if self.fences.is_empty() {
            return;
        }
        let vm = self.retired(wave)[1];
        let (done, left): (Vec<Fence>, Vec<Fence>) = std::mem::take(&mut self.fences)
            .into_iter()
            .partition(|f| f.index <= vm);
        self.fences = left;
        for f in done {
            Arc::make_mut(&mut self.known).join(&f.clock, wave.id);
            for p in &f.atomics {
                self.acquired.retain(|q| q.addr != p.addr);
                self.acquired.push(*p);
            }
        }
        let extra = self.acquired.len().saturating_sub(PENDING_MAX);
        self.acquired.drain(..extra);
    }

    /// The atomic of wave `w` through which this wave acquired, or read without acquiring,
    /// a release of `w`'s, if any.
    fn learnt(&self, w: u32, addrs: &AddrClocks) -> Option<(u64, u32)> {
        let fences = self.fences.iter().filter_map(|f| f.clock.get(w).copied());
        let pending = self.pending.iter().filter_map(|p| p.get(addrs, w));
        self.known
            .get(w)
            .copied()
            .into_iter()
            .chain(fences)
            .chain(pending)
            .find_map(|r| r.atomic)
    }

    /// An atomic or barrier: starts a new generation if plain accesses were made, and
    /// returns how far the wave's accesses are released (retired before it).
    fn sync_point(&mut self, wave: &Wave) -> Released {
        if self.dirty {
            self.gen = self.gen.wrapping_add(1);
            self.dirty = false;
        }
        let r = self.retired(wave);
        while self
            .open
            .front()
            .is_some_and(|o| o.stores <= r[0] && o.loads <= r[1])
        {
            self.open.pop_front();
        }
        let first = |f: &dyn Fn(&Open) -> bool| self.open.iter().find(|o| f(o)).map(|o| o.gen);
        Released {
            stores: first(&|o| o.stores > r[0]).unwrap_or(self.gen),
            loads: first(&|o| o.loads > r[1]).unwrap_or(self.gen),
            at: self.gen,
            atomic: None,
        }
    }
}

/// Whether the access `me`, issued on the `vm` counter or not (`on_vm`), is behind its
/// wave's acquire fences on that in-order counter: a load or a returning atomic there.
fn behind_fence(me: &Ref, on_vm: bool) -> bool {
    on_vm && me.access() != MemAccess::Write
}

/// Most address clocks, and most wave states, a thread keeps for reuse.
const SPARE_MAX: usize = 4096;

thread_local! {
    /// Address clocks and wave states of dropped orders, cleared, their vectors' capacity
    /// kept: a launch makes a clock (three allocations) for every address its atomics
    /// touch and a state for every wave, and `check --seeds` or the benchmark make the
    /// same ones again in each launch.
    static SPARE_ADDRS: RefCell<Vec<Arc<AddrClock>>> = const { RefCell::new(Vec::new()) };
    static SPARE_WAVES: RefCell<Vec<Arc<WaveOrder>>> = const { RefCell::new(Vec::new()) };
    /// The address map of a dropped order, emptied, its table kept (up to [`SPARE_MAX`]
    /// entries): grown from empty in every launch, it was rehashed at each doubling.
    static SPARE_MAP: RefCell<Option<AddrClocks>> = const { RefCell::new(None) };
}

/// Moves the unshared ones of `items` (cleared by `clear`) to `spare`, up to
/// [`SPARE_MAX`]; the others (shared with a snapshot, or past the bound) are dropped.
fn keep_spare<T>(
    spare: &'static std::thread::LocalKey<RefCell<Vec<Arc<T>>>>,
    items: impl Iterator<Item = Arc<T>>,
    clear: impl Fn(&mut T),
) {
    // `try_with`: an order dropped while the thread exits simply frees its parts.
    let _ = spare.try_with(|spare| {
        let mut spare = spare.borrow_mut();
        for mut item in items {
            if spare.len() >= SPARE_MAX {
                break;
            }
            if let Some(x) = Arc::get_mut(&mut item) {
                clear(x);
                spare.push(item);
            }
        }
    });
}

/// Most words of atomics an order defers ([`Order::deferred`]) before applying them.
const DEFERRED_WORDS: usize = 2048;

/// An atomic not yet applied to its words' clocks ([`Order::deferred`]): its number, its
/// wave and PC, what it releases and publishes ([`AddrClock::apply`]), and how many words
/// it touched.
#[derive(Debug, Clone)]
struct DeferredAtomic {
    at: u64,
    wave: u32,
    pc: u64,
    own: Released,
    known: Option<Arc<Clock>>,
    words: usize,
}

/// The release/acquire state of a launch: per wave, and per address an atomic touched.
/// Cloned with the machine (time-travel snapshots): waves and clocks are shared until
/// written, as the shadow's pages are.
#[derive(Debug, Default)]
pub(super) struct Order {
    on: bool,
    /// An empty clock, shared by the waves that ended (one allocation, not one each).
    empty: Arc<Clock>,
    /// By global wave id (dense: a launch's waves are numbered from 0).
    waves: Vec<Held<WaveOrder>>,
    addrs: AddrClocks,
    /// The number of the last atomic (ascending, from 1; [`AddrClock`] keeps its parts by
    /// these numbers).
    atomics: u64,
    /// Atomics not yet applied to the clocks of their words, oldest first, and their
    /// words (each one's, in turn): nothing reads those clocks but an acquire fence and
    /// a race's report ([`Order::apply_deferred`] before them), so a kernel whose
    /// atomics no fence follows (a histogram's) applies none, where applying each word
    /// at once was a fifth of its checked time. At most [`DEFERRED_WORDS`] words.
    deferred: Vec<DeferredAtomic>,
    deferred_words: Vec<u64>,
    /// Its waves and address clocks are shared with its clones (snapshots) until
    /// written, without `Arc::make_mut`'s check while they are its own ([`Held`]).
    owner: Owner,
}

impl Clone for Order {
    fn clone(&self) -> Order {
        // Every part is shared from now on, by both orders.
        let owner = self.owner.share();
        Order {
            on: self.on,
            empty: Arc::clone(&self.empty),
            waves: self.waves.iter().map(Held::share).collect(),
            addrs: self.addrs.iter().map(|(&k, c)| (k, c.share())).collect(),
            atomics: self.atomics,
            deferred: self.deferred.clone(),
            deferred_words: self.deferred_words.clone(),
            owner,
        }
    }
}

impl Order {
    /// The order for `code`, launched with `waves` waves in all: on when it holds a
    /// global atomic (without one, nothing can synchronise workgroups and nothing needs
    /// to be followed).
    pub fn new(code: &[CodeWord], waves: usize) -> Order {
        let on = code.iter().any(|w| {
            matches!(w, CodeWord::Instr(Decoded { op: Op::Atomic { mode, .. }, .. })
                if !matches!(mode, AddrMode::Shared | AddrMode::Scratch))
        });
        let mut order = Order::default();
        order.on = on;
        if on {
            // Sized once (waves are numbered densely from 0), not grown wave by wave.
            order.waves.reserve_exact(waves.min(SPARE_MAX));
            if let Some(map) = SPARE_MAP.with_borrow_mut(Option::take) {
                order.addrs = map;
            }
        }
        order
    }

    /// Whether the order is followed.
    #[inline]
    pub fn on(&self) -> bool {
        self.on
    }

    /// Forgets every wave and address (the races detector was turned on anew).
    pub fn clear(&mut self) {
        self.waves.clear();
        self.addrs.clear();
        self.deferred.clear();
        self.deferred_words.clear();
    }

    /// Applies the deferred atomics to their words' clocks, oldest first: before anything
    /// reads the clocks.
    fn apply_deferred(&mut self) {
        if self.deferred.is_empty() {
            return;
        }
        let generation = self.owner.stamp();
        let mut words = self.deferred_words.iter();
        for d in self.deferred.drain(..) {
            for &x in words.by_ref().take(d.words) {
                let clock = (self.addrs.entry(x))
                    .or_insert_with(|| {
                        let c = SPARE_ADDRS.with_borrow_mut(Vec::pop).unwrap_or_default();
                        Held::unique(c, generation)
                    })
                    .get_mut(generation);
                clock.apply(d.wave, d.own, d.known.as_ref(), (d.pc, d.at));
            }
        }
        self.deferred_words.clear();
    }

    fn wave(&mut self, id: u32) -> &mut WaveOrder {
        let generation = self.owner.stamp();
        Self::wave_in(&mut self.waves, id, generation)
    }

    /// Wave `id`'s part in `waves` (made when not seen yet), borrowing only the waves
    /// (`generation`: the order's stamp, [`Owner::stamp`]).
    #[inline(always)]
    fn wave_in(waves: &mut Vec<Held<WaveOrder>>, id: u32, generation: u64) -> &mut WaveOrder {
        let i = id as usize;
        if i >= waves.len() {
            waves.resize_with(i + 1, || {
                let w = SPARE_WAVES.with_borrow_mut(Vec::pop).unwrap_or_default();
                Held::unique(w, generation)
            });
        }
        waves[i].get_mut(generation)
    }

    /// Wave `id`'s part, if it was seen.
    fn get(&self, id: u32) -> Option<&WaveOrder> {
        self.waves.get(id as usize).map(|w| &**w)
    }

    /// After `wave` executed `d` at `pc` without a fault: counts what it issued, notes an
    /// acquire fence, and applies the fences that retired.
    ///
    /// Inlined into the hooks, so the test that leaves out every instruction that is
    /// neither issued on `vst` or `vm`, nor a wait, nor `end` (most of them: the order has
    /// nothing to do for them) costs no call.
    #[inline]
    pub fn executed(&mut self, wave: &Wave, d: &Decoded, pc: u64) {
        let counted = match d.counter {
            Some(Counter::Vst) => Some(0),
            Some(Counter::Vm) => Some(1),
            _ => None,
        };
        if counted.is_none() && !matches!(d.op, Op::Wait(_) | Op::End) {
            return;
        }
        self.executed_counted(wave, d, pc, counted);
    }

    /// [`Order::executed`] for an instruction it follows (`counted`: the index of its
    /// counter in `issued`).
    #[inline(never)]
    fn executed_counted(&mut self, wave: &Wave, d: &Decoded, pc: u64, counted: Option<usize>) {
        if d.op == Op::CacheInvalidate {
            self.apply_deferred();
        }
        let addrs = &self.addrs;
        let me = Self::wave_in(&mut self.waves, wave.id, self.owner.stamp());
        if let Some(c) = counted {
            me.issued[c] += 1;
        }
        match d.op {
            Op::CacheInvalidate => {
                let mut clock = Clock::default();
                for p in &me.pending {
                    if let Some(c) = addrs.get(&p.addr) {
                        c.join_into(&mut clock, wave.id, p.at);
                    }
                }
                let atomics = std::mem::take(&mut me.pending);
                me.fences.push(Fence {
                    index: me.issued[1],
                    pc,
                    clock: Arc::new(clock),
                    atomics,
                });
            }
            Op::End => {
                // Nothing it does follows: only its generation is still asked for. The
                // empty clock is the order's, shared: `Arc::default` would allocate one.
                me.known = Arc::clone(&self.empty);
                me.pending = Vec::new();
                me.fences = Vec::new();
                me.late_fences = Vec::new();
                me.acquired = Vec::new();
                me.open = VecDeque::new();
                return;
            }
            _ => {}
        }
        me.retire_fences(wave);
    }

    /// `wave`'s access to global memory (`trace`, made as `access` by the instruction at
    /// `pc`): the generation it falls in. A plain one is noted as outstanding until its
    /// counter retires it; an atomic releases what the wave retired to every address it
    /// touched, and waits there for an acquire.
    pub fn access(&mut self, wave: &Wave, access: MemAccess, trace: &MemTrace, pc: u64) -> u32 {
        let me = self.wave(wave.id);
        match access {
            MemAccess::Read | MemAccess::Write => {
                let (st, ld) = match access {
                    MemAccess::Write => (me.issued[0], 0),
                    _ => (0, me.issued[1]),
                };
                me.dirty = true;
                match me.open.back_mut() {
                    Some(o) if o.gen == me.gen => {
                        o.stores = o.stores.max(st);
                        o.loads = o.loads.max(ld);
                    }
                    _ => me.open.push_back(Open {
                        gen: me.gen,
                        stores: st,
                        loads: ld,
                    }),
                }
                me.gen
            }
            MemAccess::Atomic => {
                let mut own = me.sync_point(wave);
                own.atomic = Some((pc, wave.id));
                let gen = me.gen;
                // Every word the lanes touched, once (at most one entry per lane).
                let mut buf = [0u64; LANES];
                let n = trace.count().min(LANES);
                for (b, e) in buf.iter_mut().zip(trace.accesses()) {
                    *b = e.addr & !3;
                }
                buf[..n].sort_unstable();
                let mut m = 0;
                for i in 0..n {
                    if m == 0 || buf[i] != buf[m - 1] {
                        buf[m] = buf[i];
                        m += 1;
                    }
                }
                let words = &buf[..m];
                if words.is_empty() {
                    return gen;
                }
                if self.deferred_words.len() + words.len() > DEFERRED_WORDS {
                    self.apply_deferred();
                }
                if self.deferred_words.capacity() == 0 {
                    // Sized once: grown from empty, both were reallocated several times
                    // in every launch.
                    self.deferred_words.reserve_exact(DEFERRED_WORDS);
                    self.deferred.reserve(LANES);
                }
                self.atomics += 1;
                let at = self.atomics;
                let generation = self.owner.stamp();
                let me = self.waves[wave.id as usize].get_mut(generation);
                me.pending.retain(|p| words.binary_search(&p.addr).is_err());
                // Room for every word at once: pushed one by one, a 32-word atomic grew
                // the vector four times.
                me.pending.reserve(words.len());
                let pending = words.iter().map(|&addr| Pending {
                    addr,
                    pc,
                    wave: wave.id,
                    at,
                });
                me.pending.extend(pending);
                let extra = me.pending.len().saturating_sub(PENDING_MAX);
                me.pending.drain(..extra);
                // What the wave learnt is published by this atomic: shared, not copied.
                let known = (!me.known.is_empty()).then(|| Arc::clone(&me.known));
                self.deferred_words.extend_from_slice(words);
                self.deferred.push(DeferredAtomic {
                    at,
                    wave: wave.id,
                    pc,
                    own,
                    known,
                    words: words.len(),
                });
                gen
            }
        }
    }

    /// The waves of a workgroup are released from a barrier: each releases what it
    /// retired, and all learn what the others know and released, and which atomics they
    /// read that an acquire fence may still take. An acquire fence a wave had not retired
    /// there passes nothing on (the barrier waits for waves, not for their fences): the
    /// others keep it only to name it when they race.
    pub fn barrier(&mut self, group: &[Wave]) {
        // Room for every wave's own release and what the first knows (the others mostly
        // know the same: the clock the last barrier gave them all).
        let first_known = group
            .first()
            .and_then(|w| self.get(w.id))
            .map_or(0, |o| o.known.len());
        let mut all = Clock(Vec::with_capacity(group.len() + first_known));
        let mut late: Vec<LateFence> = Vec::new();
        // The known clocks joined so far (the first few; each wave's stays alive, in
        // place, through the loop). Joining a clock again changes nothing, whatever was
        // joined between: `Released::join` only raises `stores`, `loads` and `at`, and
        // changes `atomic` only where one of those rises or the entry has none (once an
        // entry has one it keeps one), so none of its entries' joins acts again; and a
        // wave the clock left out, being full at `CLOCK_MAX`, stays out (a full clock
        // stays full, and a merge keeps the lowest wave ids, so a wave a merge dropped
        // is above every wave kept). A clock shared by several waves (the one the last
        // barrier gave them all) is joined once.
        let mut joined = [std::ptr::null::<Clock>(); 4];
        let generation = self.owner.stamp();
        for w in group {
            let me = Self::wave_in(&mut self.waves, w.id, generation);
            me.retire_fences(w);
            // A waiting wave's PC is past its (32-bit) barrier.
            let barrier = w.pc.wrapping_sub(4);
            late.extend(me.fences.iter().map(|f| LateFence {
                pc: f.pc,
                wave: w.id,
                barrier,
                clock: Arc::clone(&f.clock),
            }));
            let own = me.sync_point(w);
            // Left in place (each wave is given `all` below): taking it would allocate an
            // empty clock in its place.
            let known = Arc::as_ptr(&me.known);
            if !joined.contains(&known) {
                all.join(&me.known, u32::MAX);
                if let Some(slot) = joined.iter_mut().find(|k| k.is_null()) {
                    *slot = known;
                }
            }
            all.put(w.id, own);
        }
        let all = Arc::new(all);
        // An atomic one wave read before the barrier is acquired by another's fence after
        // it (the barrier orders the fence after the atomic): pending atomics are shared,
        // of two on one word the one that read it later (it holds what the other read).
        // Those of a fence not retired there are pending for the other waves still.
        let mut pending: Vec<Pending> = Vec::new();
        for w in group {
            let me = self.wave(w.id);
            let unretired = me.fences.iter().flat_map(|f| f.atomics.iter());
            for p in me.pending.iter().chain(unretired) {
                match pending.iter().position(|q| q.addr == p.addr) {
                    Some(i) if pending[i].at >= p.at => continue,
                    Some(i) => {
                        pending.remove(i);
                    }
                    None => {}
                }
                pending.push(*p);
            }
        }
        let extra = pending.len().saturating_sub(PENDING_MAX);
        pending.drain(..extra);
        let extra = late.len().saturating_sub(PENDING_MAX);
        late.drain(..extra);
        for w in group {
            let me = self.wave(w.id);
            me.known = Arc::clone(&all);
            if !pending.is_empty() {
                me.pending.clone_from(&pending);
            }
            if !late.is_empty() || !me.late_fences.is_empty() {
                me.late_fences.clear();
                me.late_fences
                    .extend(late.iter().filter(|f| f.wave != w.id).cloned());
            }
        }
    }

    /// The full generation of `prior`'s access, from the low bits it keeps and its wave's
    /// current generation (exact while the wave is fewer than 2^11 generations past it).
    fn gen_of(&self, prior: &Ref) -> u32 {
        let now = self.get(prior.wave_id()).map_or(0, |o| o.gen);
        let mask = (1u32 << GEN_BITS) - 1;
        now.wrapping_sub(now.wrapping_sub(prior.gen()) & mask)
    }

    /// Whether `prior` happens before `me` through release/acquire: `me`'s wave acquired a
    /// release of `prior`'s wave that covers it. An acquire fence counts once it retired;
    /// before that only for a load or returning atomic issued after it on the `vm`
    /// counter (`on_vm`), the fence's own, which completes in issue order, so the access
    /// reads after the invalidation. A uniform load (`sm`), a store or a non-returning
    /// atomic (`vst`) needs the fence retired first (docs/memory.md).
    pub fn ordered(&self, prior: &Ref, me: &Ref, on_vm: bool) -> bool {
        let Some(v) = self.get(me.wave_id()) else {
            return false;
        };
        let (w, gen, access) = (prior.wave_id(), self.gen_of(prior), prior.access());
        let covers = |c: &Clock| c.get(w).is_some_and(|k| k.covers(gen, access));
        covers(&v.known) || (behind_fence(me, on_vm) && v.fences.iter().any(|f| covers(&f.clock)))
    }

    /// The missing half of release/acquire between `prior` and `me`, which race (`g`:
    /// the launch's workgroups, to name the atomics' waves'; `on_vm` as for
    /// [`Order::ordered`]).
    pub fn missing(&mut self, prior: &Ref, me: &Ref, g: Groups, on_vm: bool) -> MissingFence {
        self.apply_deferred();
        let named = |(pc, wave): (u64, u32)| FenceAtomic {
            pc,
            wave,
            workgroup: g.of(wave),
        };
        let (w, gen, access) = (prior.wave_id(), self.gen_of(prior), prior.access());
        let Some(v) = self.get(me.wave_id()) else {
            return MissingFence::Synchronisation;
        };
        // A clock of the later wave, or of an address its atomics read, that reached its
        // bound may have dropped the release that orders them.
        let full = |c: &Clock| c.len() >= CLOCK_MAX;
        let addr_full = |p: &Pending| {
            self.addrs
                .get(&p.addr)
                .is_some_and(|c| full(&c.own) || c.carried.len() >= CLOCK_MAX)
        };
        if full(&v.known)
            || v.fences
                .iter()
                .any(|f| full(&f.clock) || f.atomics.iter().any(addr_full))
            || v.pending.iter().any(addr_full)
        {
            return MissingFence::Bound;
        }
        // The record's generation is the latest with its low bits: an access a multiple
        // of 2^11 generations older looks the same. If a release the later wave knows of
        // (or, for a read, one its unretired fences will give it) covers the oldest such
        // one, the report may be false.
        if gen >= 1 << GEN_BITS {
            let older = gen & ((1 << GEN_BITS) - 1);
            let fences = v
                .fences
                .iter()
                .filter(|_| behind_fence(me, on_vm))
                .filter_map(|f| f.clock.get(w).copied());
            if v.known
                .get(w)
                .copied()
                .into_iter()
                .chain(fences)
                .any(|r| r.covers(older, access))
            {
                return MissingFence::GenerationBound;
            }
        }
        // An acquire fence that takes the release but was not retired before the access:
        // the wave's own (the access is not behind it on `vm`), then one another wave of
        // the workgroup had not retired at the barrier between.
        let covers = |c: &Clock| c.get(w).is_some_and(|r| r.covers(gen, access));
        if let Some(f) = v.fences.iter().find(|f| covers(&f.clock)) {
            return MissingFence::AcquireNotRetired {
                fence: named((f.pc, me.wave_id())),
                barrier: None,
            };
        }
        if let Some(f) = v.late_fences.iter().find(|f| covers(&f.clock)) {
            return MissingFence::AcquireNotRetired {
                fence: named((f.pc, f.wave)),
                barrier: Some(f.barrier),
            };
        }
        // What the wave's atomics read but no retired fence acquired: from unretired
        // fences (their clocks), then from atomics no fence followed.
        let mut unacquired: Vec<(Released, (u64, u32))> = Vec::new();
        for f in v.fences.iter().rev() {
            if let (Some(r), Some(p)) = (f.clock.get(w), f.atomics.last()) {
                unacquired.push((*r, (p.pc, p.wave)));
            }
        }
        for p in v.pending.iter().rev() {
            if let Some(r) = p.get(&self.addrs, w) {
                unacquired.push((r, (p.pc, p.wave)));
            }
        }
        if let Some(&(_, by)) = unacquired.iter().find(|(r, _)| r.covers(gen, access)) {
            return MissingFence::Acquire { atomic: named(by) };
        }
        // A release that covers the access, made on an address the wave's atomics read
        // only after they read it: from what retired fences acquired (the later wave did
        // acquire, too early), then from atomics no retired fence followed.
        let read = v.acquired.iter().rev().map(|p| (p, true)).chain(
            v.fences
                .iter()
                .rev()
                .flat_map(|f| f.atomics.iter().rev())
                .chain(v.pending.iter().rev())
                .map(|p| (p, false)),
        );
        for (p, acquired) in read {
            let release = self
                .addrs
                .get(&p.addr)
                .and_then(|c| c.released_after(w, p.at, |r| r.covers(gen, access)));
            if let Some(release) = release {
                return MissingFence::ReadBeforeRelease {
                    release: named(release),
                    acquire: named((p.pc, p.wave)),
                    acquired,
                };
            }
        }
        // A release that did not cover a plain access was made before it retired, or
        // before it was made (a store after the ticket): either way the access was not
        // released before that atomic. An atomic access is released only by a later
        // generation's release: one of its own generation or before (the access itself)
        // cannot order it, so it is not named.
        let names = |r: &Released| access != MemAccess::Atomic || r.after(gen);
        if let Some(atomic) = v.known.get(w).filter(|r| names(r)).and_then(|r| r.atomic) {
            return MissingFence::Release {
                atomic: named(atomic),
            };
        }
        if let Some((release, acquire)) = unacquired
            .iter()
            .filter(|(r, _)| names(r))
            .find_map(|(r, by)| Some((r.atomic?, *by)))
        {
            return MissingFence::ReleaseAndAcquire {
                release: named(release),
                acquire: named(acquire),
            };
        }
        // The other way round: the earlier wave read an atomic of the later one, which
        // made its access only after that atomic (a store after the ticket it took). Not
        // for an earlier atomic access, which no release of the later wave orders.
        match self
            .get(w)
            .filter(|_| access != MemAccess::Atomic)
            .and_then(|o| o.learnt(me.wave_id(), &self.addrs))
        {
            Some(atomic) => MissingFence::Release {
                atomic: named(atomic),
            },
            None => MissingFence::Synchronisation,
        }
    }

    /// An estimate of the heap bytes held.
    pub fn bytes(&self) -> usize {
        let entry = std::mem::size_of::<(u32, Released)>() + 8;
        let waves: usize = self
            .waves
            .iter()
            .map(|w| {
                let pending = std::mem::size_of::<Pending>();
                std::mem::size_of::<WaveOrder>()
                    + w.known.len() * entry
                    + w.fences
                        .iter()
                        .map(|f| f.clock.len() * entry + f.atomics.len() * pending)
                        .sum::<usize>()
                    + w.late_fences.len() * std::mem::size_of::<LateFence>()
                    + (w.pending.len() + w.acquired.len()) * pending
            })
            .sum();
        let undo = std::mem::size_of::<(u64, u32, Option<Released>)>();
        let carried = std::mem::size_of::<(Arc<Clock>, (u64, u32), u64)>();
        let deferred = self.deferred.capacity() * std::mem::size_of::<DeferredAtomic>()
            + self.deferred_words.capacity() * 8;
        waves
            + deferred
            + self
                .addrs
                .values()
                .map(|c| {
                    std::mem::size_of::<AddrClock>()
                        + c.own.len() * entry
                        + c.carried.len() * carried
                        + c.undo.len() * undo
                })
                .sum::<usize>()
    }
}

impl Drop for Order {
    fn drop(&mut self) {
        let mut addrs = std::mem::take(&mut self.addrs);
        keep_spare(
            &SPARE_ADDRS,
            addrs.drain().map(|(_, c)| c.into_arc()),
            AddrClock::clear,
        );
        if addrs.capacity() > 0 && addrs.capacity() <= SPARE_MAX {
            let _ = SPARE_MAP.try_with(|m| *m.borrow_mut() = Some(addrs));
        }
        let waves = std::mem::take(&mut self.waves);
        keep_spare(
            &SPARE_WAVES,
            waves.into_iter().map(Held::into_arc),
            WaveOrder::clear,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(stores: u32, loads: u32, atomic: Option<u64>) -> Released {
        Released {
            stores,
            loads,
            at: stores.max(loads),
            atomic: atomic.map(|pc| (pc, 7)),
        }
    }

    /// A cleared address clock or wave state (as dropped orders leave them for reuse)
    /// holds what a new one holds.
    #[test]
    fn cleared_parts_equal_new_ones() {
        let mut c = AddrClock::default();
        c.own.put(3, r(1, 2, Some(8)));
        c.atomics = 2;
        c.carried.push((Arc::new(c.own.clone()), (16, 3), 2));
        c.undo.push_back((2, 3, None));
        c.clear();
        assert_eq!(format!("{c:?}"), format!("{:?}", AddrClock::default()));
        let mut w = WaveOrder {
            gen: 4,
            dirty: true,
            issued: [2, 3],
            ..WaveOrder::default()
        };
        w.open.push_back(Open {
            gen: 1,
            stores: 2,
            loads: 0,
        });
        Arc::make_mut(&mut w.known).put(1, r(1, 1, None));
        let p = Pending {
            addr: 64,
            pc: 8,
            wave: 3,
            at: 2,
        };
        w.pending.push(p);
        w.fences.push(Fence {
            index: 1,
            pc: 4,
            clock: Arc::new(c.own.clone()),
            atomics: vec![p],
        });
        w.clear();
        assert_eq!(format!("{w:?}"), format!("{:?}", WaveOrder::default()));
        // A known clock shared with another wave is replaced, not cleared.
        let shared = Arc::new(Clock(vec![(2, r(1, 1, None))]));
        w.known = Arc::clone(&shared);
        w.clear();
        assert!(w.known.is_empty());
        assert_eq!(shared.len(), 1);
    }

    /// An address's clock as of an earlier count of its atomics (what an atomic read) is
    /// the clock as it was then: taken back through its kept changes, its carried clocks
    /// cut at that count, for every wave and every count the changes reach.
    #[test]
    fn clocks_as_of_a_count_are_the_clocks_as_they_were() {
        let mut next = rng(0x9e37_79b9_7f4a_7c15);
        let mut c = AddrClock::default();
        let mut then = vec![c.clone()];
        let knowns: Vec<Arc<Clock>> = (0..4)
            .map(|k| Arc::new(Clock(vec![(20 + k, r(k, k + 1, Some(4 * u64::from(k))))])))
            .collect();
        for step in 0..400u64 {
            let w = next(12) as u32;
            let g = next(50) as u32;
            let known = (next(3) == 0).then(|| &knowns[next(4) as usize]);
            // Numbered among a launch's atomics: ascending, not consecutive.
            c.apply(
                w,
                r(g, g / 2, Some(step * 4)),
                known,
                (step * 4, 3 * step + 1),
            );
            then.push(c.clone());
        }
        for (k, old) in then.iter().enumerate() {
            // As of the `k`th atomic (number 3k - 2) and of the numbers before the next.
            let k = k as u64;
            let numbers = if k == 0 { 0..1 } else { 3 * k - 2..3 * k + 1 };
            for k in numbers {
                for w in 0..24 {
                    assert_eq!(c.get(w, k), old.get(w, u64::MAX), "wave {w} at {k}");
                }
                let (mut now, mut was) = (Clock::default(), Clock::default());
                c.join_into(&mut now, 3, k);
                old.join_into(&mut was, 3, u64::MAX);
                assert_eq!(now.0, was.0, "at {k}");
            }
        }
    }

    /// A clone of an order (a snapshot) and the original write their own waves and
    /// address clocks, whatever their stamps said before the clone, and deferred atomics
    /// are applied to each one's own clocks.
    #[test]
    fn a_clone_and_its_original_write_their_own_parts() {
        let mut a = Order::default();
        a.wave(0).gen = 1;
        let defer = |o: &mut Order, at: u64, w: u32| {
            o.deferred_words.extend([64, 68]);
            o.deferred.push(DeferredAtomic {
                at,
                wave: w,
                pc: 4,
                own: r(at as u32, at as u32, Some(4)),
                known: None,
                words: 2,
            });
        };
        defer(&mut a, 1, 0);
        a.apply_deferred();
        defer(&mut a, 2, 1);
        let mut b = a.clone();
        a.wave(0).gen = 2;
        a.apply_deferred();
        assert_eq!(b.wave(0).gen, 1);
        assert_eq!(b.addrs[&64].get(1, u64::MAX), None);
        b.apply_deferred();
        b.wave(0).gen = 3;
        defer(&mut b, 3, 2);
        b.apply_deferred();
        assert_eq!(a.wave(0).gen, 2);
        for o in [&a, &b] {
            assert_eq!(o.addrs[&68].get(1, u64::MAX), Some(r(2, 2, Some(4))));
            assert_eq!(o.addrs[&68].get(1, 1), None);
        }
        assert_eq!(a.addrs[&64].get(2, u64::MAX), None);
        assert_eq!(b.addrs[&64].get(2, u64::MAX), Some(r(3, 3, Some(4))));
        // Neither shares a part the other wrote.
        assert!(!Held::ptr_eq(&a.waves[0], &b.waves[0]));
        assert!(!Held::ptr_eq(&a.addrs[&64], &b.addrs[&64]));
    }

    /// A tiny xorshift generator for the randomised tests.
    fn rng(mut seed: u64) -> impl FnMut(u64) -> u64 {
        move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        }
    }

    /// `put_changed` (one search) reports what a `get` before and after a `put` tell:
    /// whether the entry changed, and what it was.
    #[test]
    fn put_changed_reports_what_get_before_and_after_tell() {
        let mut next = rng(0x2545_f491_4f6c_dd1d);
        let (mut a, mut b) = (Clock::default(), Clock::default());
        for _ in 0..2000 {
            let w = next(20) as u32;
            let (s, l) = (next(8) as u32, next(8) as u32);
            let x = r(s, l, (next(3) > 0).then(|| next(4) * 4));
            let before = a.get(w).copied();
            a.put(w, x);
            let after = a.get(w).copied();
            let expect = (after != before).then_some(before);
            assert_eq!(b.put_changed(w, x), expect);
            assert_eq!(a.0, b.0);
        }
    }

    /// A barrier joins each distinct known clock once: joining a clock again, whatever
    /// was joined or put between, leaves the result as it was.
    #[test]
    fn joining_a_clock_again_changes_nothing() {
        let mut next = rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..300 {
            // Small clocks (joined entry by entry) and large ones (merged).
            let pool: Vec<Clock> = (0..4)
                .map(|_| {
                    let mut c = Clock::default();
                    for _ in 0..next(14) {
                        let (s, l) = (next(6) as u32, next(6) as u32);
                        c.put(
                            next(24) as u32,
                            r(s, l, (next(2) == 0).then(|| next(4) * 4)),
                        );
                    }
                    c
                })
                .collect();
            let (mut every, mut once) = (Clock::default(), Clock::default());
            let mut seen = [false; 4];
            for _ in 0..8 {
                let k = next(4) as usize;
                every.join(&pool[k], u32::MAX);
                if !seen[k] {
                    once.join(&pool[k], u32::MAX);
                    seen[k] = true;
                }
                let (w, s, l) = (next(24) as u32, next(6) as u32, next(6) as u32);
                let own = r(s, l, (next(2) == 0).then(|| next(4) * 4));
                every.put(w, own);
                once.put(w, own);
            }
            assert_eq!(every.0, once.0);
        }
    }

    /// The merge of large clocks gives what joining their entries one by one gives,
    /// skipping the wave it is asked to skip.
    #[test]
    fn merging_clocks_equals_joining_each_entry() {
        let mut a = Clock::default();
        let mut b = Clock::default();
        for w in (0..40).step_by(3) {
            a.put(w, r(w, w + 1, None));
        }
        for w in (0..60).step_by(2) {
            b.put(w, r(w + 2, w, Some(u64::from(w) * 4)));
        }
        let mut merged = a.clone();
        merged.join(&b, 12);
        let mut each = a.clone();
        for (w, x) in b.iter() {
            if w != 12 {
                each.put(w, x);
            }
        }
        assert_eq!(merged.0, each.0);
        assert!(merged.0.windows(2).all(|p| p[0].0 < p[1].0));
        assert_eq!(merged.get(12), a.get(12));
        assert_eq!(merged.get(14).map(|x| x.stores), Some(16));
        assert_eq!(merged.get(13), None);
    }
}
