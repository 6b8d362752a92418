//! The machine: a launch of workgroups dispatched into resident slots, waves scheduled
//! deterministically, and the faults, deadlocks and completion they end in.
//!
//! Scheduling policy (docs/scheduling.md): round-robin over resident waves in slot order,
//! each wave running up to `quantum` instructions before the next; with a non-zero seed
//! both the quantum (1..=2*quantum) and the next wave (any runnable one) are drawn from a
//! SplitMix64 generator seeded with it. The same program, launch and seed give the same
//! interleaving. A snapshot is a clone: memory pages are shared copy-on-write.

// The old paths of the wave state, faults and the decoded code image, which live below
// both the machine and the semantics (`crate::wave`, `crate::fault`, `crate::code`).
pub use crate::code::CodeWord;
pub use crate::{fault, wave};

mod access;
mod launch;
mod parallel;
mod run;
mod scheduler;

pub use access::MemoryError;
pub use launch::{LaunchError, LaunchOptions, MAX_RESIDENT_WAVES};
pub use parallel::{in_order, run_on_threads, OneThread, ThreadedRun};
pub use scheduler::Deadlock;

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::check::{Checks, Sanitizer};
use crate::code::Decoded;
use crate::exec::fast::FastCode;
use crate::exec::AccessLog;
use crate::fault::Fault;
use crate::memory::{GlobalMemory, PagedBytes};
use crate::program::{LaunchConfig, Program};
use crate::wave::Wave;
use scheduler::SplitMix64;

/// Something the caller must see: the run cannot simply go on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A wave faulted (it is left in state Faulted).
    Fault(Fault),
    /// A workgroup's barrier can never complete (its waiting waves stay AtBarrier).
    Deadlock(Deadlock),
    /// A wave executed `brk` (only when [`Machine::set_break_is_fault`] turned faulting off); its PC is past it.
    Break {
        /// Index of the wave in [`Machine::waves`].
        wave: usize,
        /// The `brk`'s byte address.
        pc: u64,
    },
    /// Every wave of every workgroup has exited.
    Finished,
    /// No wave can run: the remaining ones are stopped by the debugger.
    Stalled,
    /// A [`Machine::stop_before`] point was reached: nothing was executed, and the
    /// scheduler is as it was before it picked the wave (time travel's replays end here).
    StopBefore,
    /// The scheduled wave is about to execute an instruction marked in
    /// the debugger's breakpoint marks; nothing was executed. The debugger decides whether to stop,
    /// and lets the wave past it to go on.
    BreakpointHit {
        /// Index of the wave in [`Machine::waves`].
        wave: usize,
        /// The marked instruction's byte address (the wave's PC, not yet executed).
        pc: u64,
    },
    /// The instruction just executed made a sanitizer finding not seen before
    /// ([`Machine::set_checks`], [`Machine::sanitizer`]); it executed.
    Finding {
        /// Index of the wave in [`Machine::waves`].
        wave: usize,
        /// Byte address of the instruction that made the finding.
        pc: u64,
    },
    /// The instruction just executed touched a range of the access log's filter ([`Machine::set_access_log`]).
    WatchHit {
        /// Index of the wave in [`Machine::waves`].
        wave: usize,
        /// Byte address of the accessing instruction.
        pc: u64,
    },
}

/// Execution statistics of a launch, counted from its start (time travel restores them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// Wave-instructions executed, summed over all waves (one per instruction a wave
    /// executes, whatever its active lanes).
    pub wave_instructions: u64,
    /// Lane-instructions: the sum over executed instructions of the active lanes (EXEC
    /// popcount, 0 to 32 each), so `lane_ops <= 32 * wave_instructions`.
    pub lane_ops: u64,
    /// Vector lane-ops: the active lanes of vector instructions only
    /// ([`crate::isa::InstrDef::is_vector`]), the unit of throughput figures; uniform,
    /// control and cache instructions (loop counters, branches, waits) are left out.
    #[serde(default)]
    pub vector_lane_ops: u64,
    /// Waves created, over every dispatched workgroup.
    pub waves_launched: u64,
    /// Workgroups whose waves have all exited.
    pub workgroups_finished: u64,
}

/// A resident workgroup slot: a place for one workgroup's waves and shared memory,
/// reused by the next workgroup once they have all exited.
#[derive(Debug, Clone, PartialEq)]
pub struct Slot {
    /// The workgroup in the slot (`None` once no more remain to dispatch).
    pub workgroup: Option<u32>,
    /// Its shared memory, zeroed at each dispatch into the slot.
    pub shared: PagedBytes,
}

/// The whole machine state. `Clone` is a snapshot (memory pages are shared until written).
#[derive(Debug, Clone)]
pub struct Machine {
    program: Arc<Program>,
    code: Arc<Vec<CodeWord>>,
    /// The code's ALU, branch, shuffle, wait and 32-bit memory instructions pre-decoded
    /// for the fastest loop.
    fast: Arc<FastCode>,
    launch: LaunchConfig,
    options: LaunchOptions,
    /// Every buffer of the launch, by global address.
    pub global: GlobalMemory,
    /// Base address of each declared buffer, in declaration order.
    pub buffer_bases: Vec<u64>,
    /// The uniform registers every wave starts with (the kernel's arguments).
    initial_u: [u32; crate::wave::UREGS],
    /// Resident waves: slot `s` owns waves `s * W .. (s + 1) * W`.
    pub waves: Vec<Wave>,
    /// Resident workgroup slots, as many as the launch keeps resident at once.
    pub slots: Vec<Slot>,
    /// The waves the last dispatch replaced (the workgroup that finished in that slot),
    /// so a front end can still show a wave whose slot was refilled as it exited.
    retired: Option<Arc<[Wave]>>,
    next_workgroup: u32,
    /// The workgroups this machine runs: `first..end` of the grid (all of it, except for
    /// one part of a run on several threads, `parallel.rs`).
    part: (u32, u32),
    /// Waves of the launch that exited or faulted (so the count remaining is O(1)).
    ended: u64,
    /// Workgroups whose deadlock an event has named, in order: one that nothing named
    /// when it happened (a fault leaves waiting waves without an event of their own) is
    /// named when no wave can run, before any is named again.
    deadlocks_named: Vec<u32>,
    rng: Option<SplitMix64>,
    current: usize,
    left: u32,
    /// What the launch has executed so far.
    pub stats: Stats,
    /// `brk` faults (plain runs) instead of raising [`Event::Break`] (the debugger).
    pub(crate) break_is_fault: bool,
    /// When set, accesses of the last instruction to watched ranges are recorded here.
    pub(crate) accesses: Option<AccessLog>,
    /// Per code word: stop with [`Event::BreakpointHit`] before executing it (empty: never).
    pub(crate) break_at: Vec<BreakAt>,
    /// Lets wave `.0` execute the instruction at `.1` once despite [`Machine::break_at`]
    /// (resuming from a breakpoint).
    pub(crate) skip_break: Option<(usize, u64)>,
    /// Stop (with [`Event::StopBefore`]) right before this instruction would execute.
    pub(crate) stop_before: Option<StopBefore>,
    /// Waves that may have changed since [`Machine::clear_touched`], as a flag per wave
    /// and a list, so a snapshot refresh visits only them.
    touched: Touched,
    /// The slot of each resident wave (a lookup instead of a division per instruction).
    wave_slots: Arc<[u32]>,
    /// The last EXEC mask counted and its active lanes (popcount once per mask change,
    /// not per instruction: the default x86-64 target has no popcount instruction).
    lanes_of: (u32, u32),
    /// Under the sanitizer: the schedules left before the turns loop is tried again
    /// after a turn it could not finish (its guard refused an instruction, or one outside
    /// the fast set came: the general loop then takes the rest of the turn, taking the
    /// guard again). Tried at every schedule, kernels whose turns it seldom finishes paid
    /// the guard twice. Both loops are exact: this only chooses which one runs.
    turns_backoff: u32,
    /// The sanitizer, while any detector is on (`None`: nothing is checked or paid).
    pub(crate) sanitizer: Option<Box<Sanitizer>>,
    /// A bit per code word, set when a wave is stepped at it (time travel's index of the
    /// code run between snapshots; empty: not kept, nothing paid).
    pub(crate) ran: Vec<u64>,
    /// While the code run is kept ([`Machine::keep_ran`]): the memory lines written in the
    /// current epoch by arrays a dispatch has replaced since (a finished workgroup's
    /// shared memory, its waves' scratch), as `(space, key, lines)` keyed as
    /// [`Machine::written_since`] keys them, which adds them: the index must not lose
    /// the writes of a workgroup that finished between two snapshots.
    pub(crate) retired_writes: Vec<(usize, u64, u64)>,
}

/// A point right before an instruction executes, where a replay stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StopBefore {
    /// Before the instruction that would make the launch's count `.0 + 1`.
    Count(u64),
    /// Before wave index `wave` (global id `id`) executes its instruction number
    /// `executed + 1`.
    Wave {
        /// Index in the machine's waves.
        wave: usize,
        /// Its global id (a slot holds other waves over time).
        id: u32,
        /// Its instruction count at the point.
        executed: u64,
    },
}

/// Which waves a breakpoint mark on a code word stops (before the debugger evaluates the
/// rest: lanes, conditions, ignore counts).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum BreakAt {
    /// Not marked: no wave stops before this word.
    #[default]
    No,
    /// Marked without a wave or workgroup filter: every wave stops before it.
    Any,
    /// Only waves matching one of these `(wave id, workgroup)` filters (`None`: any):
    /// breakpoints whose wave or workgroup filter no wave here can match cost no event.
    Only(Arc<[(Option<u32>, Option<u32>)]>),
}

impl BreakAt {
    /// Whether the mark stops wave `id` of workgroup `workgroup`.
    #[inline]
    pub(crate) fn stops(&self, id: u32, workgroup: u32) -> bool {
        match self {
            BreakAt::No => false,
            BreakAt::Any => true,
            BreakAt::Only(filters) => filters
                .iter()
                .any(|&(w, g)| w.is_none_or(|w| w == id) && g.is_none_or(|g| g == workgroup)),
        }
    }
}

/// The set of waves changed since a point: a flag per wave and the list of set flags.
#[derive(Debug, Clone, Default)]
struct Touched {
    flag: Vec<bool>,
    list: Vec<u32>,
}

impl Touched {
    #[inline]
    fn mark(&mut self, w: usize) {
        if w >= self.flag.len() {
            self.flag.resize(w + 1, false);
        }
        if !self.flag[w] {
            self.flag[w] = true;
            self.list.push(w as u32);
        }
    }

    fn clear(&mut self) {
        for &w in &self.list {
            self.flag[w as usize] = false;
        }
        self.list.clear();
    }
}

impl Machine {
    /// Makes `self` equal to `other`, which it was a copy of (by clone or `sync_from`)
    /// when `other`'s touched set was last cleared ([`Machine::clear_touched`]): only the
    /// waves `other` touched since are visited, and memory pages nobody wrote are shared,
    /// so refreshing a snapshot after a `stepi` costs one wave, not the grid. Valid when
    /// `other` changed by execution and [`Machine::write_space`] only; after register
    /// edits, clone instead.
    pub fn sync_from(&mut self, other: &Machine) {
        let Machine {
            program,
            code,
            fast,
            launch,
            options,
            global,
            buffer_bases,
            initial_u,
            waves,
            slots,
            retired,
            next_workgroup,
            part,
            ended,
            deadlocks_named,
            rng,
            current,
            left,
            stats,
            break_is_fault,
            accesses,
            break_at,
            skip_break,
            stop_before,
            touched,
            wave_slots,
            lanes_of,
            turns_backoff,
            sanitizer,
            ran,
            retired_writes,
        } = other;
        if !Arc::ptr_eq(&self.program, program)
            || self.waves.len() != waves.len()
            || self.slots.len() != slots.len()
        {
            self.clone_from(other);
            return;
        }
        self.code = Arc::clone(code);
        self.fast = Arc::clone(fast);
        self.launch = *launch;
        self.options = *options;
        self.global.sync_from(global);
        self.buffer_bases.clone_from(buffer_bases);
        self.initial_u = *initial_u;
        for &w in &touched.list {
            if let (Some(mine), Some(theirs)) =
                (self.waves.get_mut(w as usize), waves.get(w as usize))
            {
                mine.sync_from(theirs);
            }
        }
        for (mine, theirs) in self.slots.iter_mut().zip(slots) {
            mine.workgroup = theirs.workgroup;
            mine.shared.sync_from(&theirs.shared);
        }
        self.retired.clone_from(retired);
        self.next_workgroup = *next_workgroup;
        self.part = *part;
        self.ended = *ended;
        self.deadlocks_named.clone_from(deadlocks_named);
        self.rng = *rng;
        self.current = *current;
        self.left = *left;
        self.stats = *stats;
        self.break_is_fault = *break_is_fault;
        self.accesses.clone_from(accesses);
        self.break_at.clone_from(break_at);
        self.skip_break = *skip_break;
        self.stop_before = *stop_before;
        self.wave_slots = Arc::clone(wave_slots);
        self.lanes_of = *lanes_of;
        self.turns_backoff = *turns_backoff;
        self.sanitizer.clone_from(sanitizer);
        self.ran.clone_from(ran);
        self.retired_writes.clone_from(retired_writes);
    }

    /// Removes the debugger's hooks (breakpoint marks, the access log, resume-over and
    /// stop-before points): a snapshot for time travel replays without them.
    pub(crate) fn strip_hooks(&mut self) {
        self.break_at = Vec::new();
        self.accesses = None;
        self.skip_break = None;
        self.stop_before = None;
        self.ran = Vec::new();
    }

    /// Starts keeping the code run ([`Machine::ran`]), from nothing.
    pub(crate) fn keep_ran(&mut self) {
        self.ran = vec![0; self.code.len().div_ceil(64)];
    }

    /// Starts a new epoch of memory write marks in every array (global, shared, scratch):
    /// call as a snapshot is kept, so [`Machine::written_since`] it names later writes.
    pub(crate) fn next_epoch(&mut self) {
        self.retired_writes.clear();
        self.global.next_epoch();
        for s in &mut self.slots {
            s.shared.next_epoch();
        }
        for w in &mut self.waves {
            w.scratch.next_epoch();
        }
    }

    /// The memory written since `prev` (an earlier snapshot of this machine, taken at
    /// [`Machine::next_epoch`]), per space, as `(key, lines)` sorted by key: a 64-byte
    /// line per bit of each 4 KiB page. Keys: global, the page's address; shared, its
    /// offset in the workgroup's window (every slot's); scratch, its offset in a wave's
    /// scratch (every wave's: lane `l` at `l * scratch bytes`).
    pub(crate) fn written_since(&self, prev: &Machine) -> [Vec<(u64, u64)>; 3] {
        use std::collections::BTreeMap;
        let mut out: [BTreeMap<u64, u64>; 3] = Default::default();
        let mut add = |space: usize, key: u64, lines: u64| {
            *out[space].entry(key).or_default() |= lines;
        };
        for (i, a) in self.global.allocations().iter().enumerate() {
            for (page, lines) in a.data.written_since(prev.global.bytes(i)) {
                add(0, a.base + page as u64 * 4096, lines);
            }
        }
        for (i, s) in self.slots.iter().enumerate() {
            for (page, lines) in s.shared.written_since(prev.slots.get(i).map(|x| &x.shared)) {
                add(1, page as u64 * 4096, lines);
            }
        }
        for (i, w) in self.waves.iter().enumerate() {
            let theirs = prev.waves.get(i).map(|x| &x.scratch);
            for (page, lines) in w.scratch.written_since(theirs) {
                add(2, page as u64 * 4096, lines);
            }
        }
        for &(space, key, lines) in &self.retired_writes {
            add(space, key, lines);
        }
        out.map(|m| m.into_iter().collect())
    }

    /// Whether the machine is at `s`, with nothing more to run to reach it.
    pub(crate) fn stops_at(&self, s: StopBefore) -> bool {
        match s {
            StopBefore::Count(n) => self.stats.wave_instructions == n,
            StopBefore::Wave { .. } => false,
        }
    }

    /// An estimate of the memory a snapshot of this machine holds on its own: register
    /// storage and wave state (with the queues of outstanding accesses), every array's list
    /// of page pointers, and 4 KiB for each memory page not shared with `prev` (pages are
    /// copy-on-write: unchanged ones cost one pointer).
    pub(crate) fn snapshot_bytes(&self, prev: Option<&Machine>) -> usize {
        let waves: usize = self
            .waves
            .iter()
            .map(|w| {
                let queued: usize = w.outstanding.iter().map(|q| q.len()).sum();
                w.v.allocated() * 128
                    + std::mem::size_of::<crate::wave::Wave>()
                    + queued * std::mem::size_of::<crate::wave::Outstanding>()
            })
            .sum();
        let pages = |mine: &PagedBytes, theirs: Option<&PagedBytes>| match theirs {
            Some(t) => mine.pages_not_shared_with(t),
            None => mine.page_count(),
        };
        let mut own_pages = 0;
        for (i, w) in self.waves.iter().enumerate() {
            own_pages += pages(
                &w.scratch,
                prev.and_then(|p| p.waves.get(i)).map(|x| &x.scratch),
            );
        }
        for (i, s) in self.slots.iter().enumerate() {
            own_pages += pages(
                &s.shared,
                prev.and_then(|p| p.slots.get(i)).map(|x| &x.shared),
            );
        }
        for (i, a) in self.global.allocations().iter().enumerate() {
            let theirs = prev.and_then(|p| p.global.bytes(i));
            own_pages += pages(&a.data, theirs);
        }
        // Every array's list of page pointers is copied too.
        let pointers: usize = self
            .waves
            .iter()
            .map(|w| w.scratch.page_count())
            .sum::<usize>()
            + self
                .slots
                .iter()
                .map(|s| s.shared.page_count())
                .sum::<usize>()
            + self
                .global
                .allocations()
                .iter()
                .map(|a| a.data.page_count())
                .sum::<usize>();
        waves
            + own_pages * 4096
            + pointers * std::mem::size_of::<usize>()
            + self.sanitizer.as_ref().map_or(0, |s| s.bytes())
    }

    /// Starts a new touched set: call after making a snapshot of this machine.
    pub fn clear_touched(&mut self) {
        self.touched.clear();
    }

    #[inline]
    pub(crate) fn touch(&mut self, w: usize) {
        self.touched.mark(w);
    }

    /// The scheduler's state: the current wave, the instructions left in its quantum, and
    /// the seeded generator's state (`None`: round-robin). Two machines with equal waves,
    /// memory and scheduler state run on identically.
    pub fn scheduler_state(&self) -> (usize, u32, Option<u64>) {
        (self.current, self.left, self.rng.map(|r| r.0))
    }

    /// The kernel being run (shared with snapshots).
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The effective launch shape: the kernel's own with [`LaunchOptions`]' grid and
    /// workgroup-size overrides applied.
    pub fn launch(&self) -> &LaunchConfig {
        &self.launch
    }

    /// The options the launch was made with.
    pub fn options(&self) -> &LaunchOptions {
        &self.options
    }

    /// The decoded code, one entry per 32-bit word.
    pub fn code(&self) -> &[CodeWord] {
        &self.code
    }

    /// The decoded instruction at a byte address.
    pub fn instr_at(&self, pc: u64) -> Option<&Decoded> {
        if !pc.is_multiple_of(4) {
            return None;
        }
        match self.code.get((pc / 4) as usize)? {
            CodeWord::Instr(d) => Some(d),
            _ => None,
        }
    }

    /// Whether `brk` faults (plain runs, the default) or raises [`Event::Break`] (under a
    /// debugger).
    pub fn set_break_is_fault(&mut self, fault: bool) {
        self.break_is_fault = fault;
    }

    /// Starts (or, with `None`, stops) recording the accesses of each instruction to the
    /// log's watched ranges; [`Event::WatchHit`] reports them.
    pub fn set_access_log(&mut self, log: Option<AccessLog>) {
        self.accesses = log;
    }

    /// The access log, when one is set.
    pub fn access_log(&self) -> Option<&AccessLog> {
        self.accesses.as_ref()
    }

    /// Turns the sanitizer's detectors on or off (all off removes it, and its findings).
    /// Turned on mid-launch, uninitialised reads are reported only for waves and
    /// workgroups that start from then on (what was written before is not known).
    pub fn set_checks(&mut self, checks: Checks) {
        match (&mut self.sanitizer, checks.any()) {
            (_, false) => self.sanitizer = None,
            (Some(s), true) => s.set_checks(checks),
            (None, true) => {
                let preloaded = self
                    .program
                    .args
                    .iter()
                    .map(|a| {
                        let n = match a.value {
                            crate::program::ArgValue::Value(_) => 1,
                            crate::program::ArgValue::Address(_) => 2,
                            crate::program::ArgValue::Descriptor(_) => 4,
                        };
                        (a.reg as u32..a.reg as u32 + n)
                            .fold(0u64, |m, r| m | 1u64.checked_shl(r).unwrap_or(0))
                    })
                    .fold(0, |m, x| m | x);
                self.sanitizer = Some(Box::new(Sanitizer::new(
                    checks,
                    &self.code,
                    preloaded,
                    &self.launch,
                )));
            }
        }
    }

    /// The detectors that are on.
    pub fn checks(&self) -> Checks {
        self.sanitizer
            .as_ref()
            .map_or(Checks::default(), |s| s.checks())
    }

    /// The sanitizer, while a detector is on: its findings.
    pub fn sanitizer(&self) -> Option<&Sanitizer> {
        self.sanitizer.as_deref()
    }

    /// Global address of the first byte of the declared buffer `name` (`None`: no such
    /// buffer).
    pub fn buffer_base(&self, name: &str) -> Option<u64> {
        let i = self.program.buffers.iter().position(|b| b.name == name)?;
        Some(self.buffer_bases[i])
    }
}
