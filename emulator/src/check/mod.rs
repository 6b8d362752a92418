//! The kernel sanitizer: detectors for the bugs stepping does not show (docs/sanitizer.md).
//!
//! - **races** (`races.rs`): two waves touch the same bytes of shared or global memory,
//!   one of them with a plain (non-atomic) write, with no barrier of their workgroup
//!   between them; and one store whose lanes write different values to one address.
//! - **hazards** (`hazards.rs`): a register read or overwritten while an asynchronous
//!   load still has to write it, and a store's data register overwritten before its wait.
//! - **init** (`init.rs`): shared memory and scratch read before anything wrote them in
//!   this launch, and registers read before written (the `.arg` registers are preloaded).
//! - **sync** (`sync.rs`): lanes that were inactive at a barrier rejoining their wave,
//!   waves released from different barriers, and barriers that can never complete.
//!
//! `config.rs` says which are on, `finding.rs` what they report, `hooks.rs` is what the
//! machine calls; this file holds the state they share. The machine holds a [`Sanitizer`]
//! only while a detector is on; without one it pays a pointer test per memory instruction
//! and nothing in its tight loop. A finding raises the machine's `Event::Finding` the
//! first time it is seen (later sightings of the same kind at the same instructions are
//! counted).

mod config;
mod fast;
mod finding;
mod hazards;
mod held;
mod hooks;
mod init;
mod late;
mod order;
mod races;
pub(crate) mod regs;
mod shadow;
mod sync;
mod xlane;

pub use config::{CheckGroup, Checks};
pub use finding::{
    ByteRange, FenceAtomic, Finding, FindingKey, FindingKind, MemAccess, MissingFence, Severity,
    Site, SourceWrite, WaveAt, WaveLanes, FINDING_LIST_MAX,
};

use std::collections::HashMap;
use std::sync::Arc;

use crate::code::CodeWord;
use crate::isa::RegFile;
use crate::program::LaunchConfig;
use crate::trace::MemTrace;
use crate::wave::{Wave, LANES, VREGS};
pub(crate) use fast::{FastChecked, FastGuard};
/// The most waves a release/acquire clock holds (docs/sanitizer.md, "Bounds").
pub const CLOCK_WAVES: usize = order::CLOCK_MAX;
/// The release generations a race record tells apart (it keeps a wave's generation modulo
/// this; docs/sanitizer.md).
pub const GENERATIONS: u32 = 1 << shadow::GEN_BITS;
use hazards::Busy;
use order::Order;
use regs::{RegBits, RegSets, RegUse};
use shadow::{Groups, InitBits, RaceShadow};

/// The most wave and slot shadows made room for when the sanitizer is made (a launch's
/// resident waves and workgroups, up to this; more grow their vectors as needed).
const SHADOWS_AHEAD: usize = 64;

/// Per resident wave: what the detectors know of it.
#[derive(Debug, Clone)]
struct WaveShadow {
    /// The global id it describes (a slot's waves change when workgroups finish).
    id: u32,
    /// Whether it was seen from its first instruction (otherwise nothing is known of
    /// what was written before: no uninitialised reads are reported).
    known: bool,
    /// Per vector register: the lanes written. Held in place: as a vector it was one
    /// allocation per wave in every launch (a register past the last cannot be written:
    /// the machine's registers end there too).
    v: [u32; VREGS],
    /// Uniform registers written: bit r = uniform register r (the `.arg` ones preloaded).
    u: u64,
    /// Vector registers written in every lane, and the uniform registers written (`u`):
    /// an instruction that reads only these needs no closer look.
    full: RegBits,
    /// Lanes inactive at a barrier this wave passed, that barrier, and the lanes active
    /// there (0: the wave passed it with EXEC 0).
    skipped: u32,
    skipped_at: u64,
    barrier_exec: u32,
    /// Scratch bytes written (offsets in the wave's scratch).
    scratch: InitBits,
    /// Registers in use by outstanding operations (`None`: to be counted again).
    busy: Option<Busy>,
    /// Operations issued per counter, and the shared and global accesses among them that
    /// may still be outstanding (`late.rs`; kept while races are on).
    issues: late::WaveIssues,
}

impl WaveShadow {
    /// Register `reg` written in `lanes` (a uniform register whatever the lanes).
    fn mark(&mut self, file: RegFile, reg: u8, lanes: u32) {
        match file {
            RegFile::Uniform => {
                self.u |= 1u64.checked_shl(reg as u32).unwrap_or(0);
                self.full.0[2] = self.u;
            }
            RegFile::Vector => {
                if let Some(v) = self.v.get_mut(reg as usize) {
                    *v |= lanes;
                    if *v == u32::MAX {
                        self.full.insert(RegFile::Vector, reg);
                    }
                }
            }
        }
    }
}

/// Per resident workgroup slot: what the detectors know of its current workgroup.
#[derive(Debug, Clone, Default)]
struct SlotShadow {
    workgroup: Option<u32>,
    known: bool,
    /// Barriers the slot's workgroup has completed (0 at dispatch): its barrier epoch.
    epoch: u32,
    /// Shared-memory bytes written in this launch, a bit per byte of the shared window.
    init: InitBits,
    /// Last accesses to each shared byte, compared by the races detector.
    race: RaceShadow,
    /// Accesses its waves had not retired when they last passed a barrier (`late.rs`).
    late: late::Lates,
}

/// The sanitizer's state: detectors, shadow state, findings. Cloned with the machine
/// (snapshots share shadow pages until written).
#[derive(Debug, Clone)]
pub struct Sanitizer {
    checks: Checks,
    uses: Arc<[RegUse]>,
    /// The same as register sets.
    sets: Arc<[RegSets]>,
    /// Per code word: the registers an operation it issues uses, for the hazard
    /// detector's issue ([`hazards::IssueBits`]).
    issue_bits: Arc<[hazards::IssueBits]>,
    /// Per code word: whether a wave there goes on only to `end`, doing nothing
    /// ([`sync::idle_exits`]).
    idle_exits: Arc<[bool]>,
    /// Per code word: whether its access is kept until retired, for a barrier it may be
    /// outstanding at; per counter, whether any is (`late.rs`, [`late::kept_accesses`]).
    kept: Arc<[bool]>,
    kept_on: [bool; 4],
    /// `.arg` registers, preloaded in every wave.
    preloaded: u64,
    /// Which workgroup a wave id is in.
    groups: Groups,
    /// Shared bytes per workgroup, scratch bytes per lane.
    shared_bytes: u64,
    scratch_bytes: u64,
    waves: Vec<WaveShadow>,
    slots: Vec<SlotShadow>,
    global: RaceShadow,
    /// Release/acquire through global atomics, for races between workgroups.
    order: Order,
    findings: Vec<Finding>,
    index: HashMap<FindingKey, usize>,
    /// Findings first seen by the last instruction.
    fresh: Vec<usize>,
    /// Workgroups whose barrier deadlock is counted (each is one sighting).
    deadlocked: Vec<u32>,
    /// The current instruction's findings.
    pending: Vec<Finding>,
    /// EXEC before the current instruction.
    exec_before: u32,
    /// The current instruction's memory accesses, filled by the semantics through the
    /// machine's `Ctx::trace` while races or init are on.
    pub(crate) trace: Box<MemTrace>,
    /// An empty trace, swapped in while the memory hook reads `trace` (boxed, so the swap
    /// moves two pointers, not two traces).
    spare: Option<Box<MemTrace>>,
}

impl Sanitizer {
    /// A sanitizer for a machine running `code`, with `.arg` registers `preloaded` (a
    /// bit per uniform register).
    pub(crate) fn new(
        checks: Checks,
        code: &[CodeWord],
        preloaded: u64,
        launch: &LaunchConfig,
    ) -> Sanitizer {
        let wpg = launch.waves_per_workgroup();
        // The launch's waves in all (saturating: only a size hint and a bound).
        let launch_waves = (launch.grid as usize).saturating_mul(wpg as usize);
        let uses: Arc<[RegUse]> = code.iter().map(RegUse::of).collect();
        let (kept, kept_on) = late::kept_accesses(code);
        Sanitizer {
            checks,
            sets: uses.iter().map(RegSets::of).collect(),
            issue_bits: code
                .iter()
                .zip(uses.iter())
                .map(hazards::IssueBits::of)
                .collect(),
            uses,
            idle_exits: sync::idle_exits(code),
            kept,
            kept_on,
            preloaded,
            groups: Groups::new(wpg),
            shared_bytes: launch.shared_bytes as u64,
            scratch_bytes: launch.scratch_bytes as u64,
            // Sized once from the launch (up to a bound, past which they grow as needed):
            // grown slot by slot they were reallocated, and their large entries copied,
            // several times in every launch.
            waves: Vec::with_capacity(launch_waves.min(SHADOWS_AHEAD)),
            slots: Vec::with_capacity((launch.grid as usize).min(SHADOWS_AHEAD)),
            global: RaceShadow::default(),
            order: Order::new(code, launch_waves),
            findings: Vec::new(),
            index: HashMap::new(),
            fresh: Vec::new(),
            deadlocked: Vec::new(),
            pending: Vec::new(),
            exec_before: 0,
            trace: Box::default(),
            spare: Some(Box::default()),
        }
    }

    /// The detectors that are on.
    pub fn checks(&self) -> Checks {
        self.checks
    }

    /// Changes the detectors (state of those turned off is kept but no longer used).
    /// A group turned on starts from what it can know now: state it left behind when it
    /// was off, or never kept, is dropped (uninitialised reads are then reported only for
    /// waves and workgroups that start afterwards).
    pub(crate) fn set_checks(&mut self, checks: Checks) {
        let was = self.checks;
        if checks.hazards != was.hazards {
            // Register use is not followed while hazards are off.
            self.waves.iter_mut().for_each(|w| w.busy = None);
        }
        if checks.init && !was.init {
            for w in &mut self.waves {
                w.known = false;
                w.v = [u32::MAX; VREGS];
                w.u = u64::MAX;
                w.full = RegBits([u64::MAX, u64::MAX, u64::MAX, 0]);
                w.scratch = InitBits::default();
            }
            for s in &mut self.slots {
                s.known = false;
                s.init = InitBits::default();
            }
        }
        if checks.sync && !was.sync {
            self.waves.iter_mut().for_each(|w| w.skipped = 0);
        }
        if checks.races && !was.races {
            self.global = RaceShadow::default();
            self.order.clear();
            self.slots.iter_mut().for_each(|s| {
                s.race = RaceShadow::default();
                s.late.clear();
            });
            // What was issued while races were off is not known: nothing is late.
            self.waves
                .iter_mut()
                .for_each(|w| w.issues = Default::default());
        }
        self.checks = checks;
    }

    /// Every distinct finding so far, in the order first seen.
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// The findings first seen by the last instruction.
    pub fn fresh(&self) -> impl Iterator<Item = &Finding> {
        self.fresh.iter().filter_map(|&i| self.findings.get(i))
    }

    /// Whether the last instruction found something new.
    pub(crate) fn has_fresh(&self) -> bool {
        !self.fresh.is_empty()
    }

    /// An estimate of the bytes of shadow state (counted in time travel's snapshot bound).
    pub fn bytes(&self) -> usize {
        use std::mem::size_of;
        let slots: usize = self
            .slots
            .iter()
            .map(|s| size_of::<SlotShadow>() + s.init.bytes() + s.race.bytes() + s.late.bytes())
            .sum();
        let waves: usize = self
            .waves
            .iter()
            .map(|w| {
                size_of::<WaveShadow>()
                    + w.scratch.bytes()
                    + w.busy.as_ref().map_or(0, Busy::bytes)
                    + w.issues.bytes()
            })
            .sum();
        let findings: usize = self
            .findings
            .iter()
            .map(|f| size_of::<Finding>() + f.waves.len() * size_of::<WaveAt>())
            .sum();
        size_of::<Sanitizer>()
            + self.uses.len()
                * (size_of::<RegUse>() + size_of::<RegSets>() + size_of::<hazards::IssueBits>() + 2)
            + slots
            + waves
            + self.global.bytes()
            + self.order.bytes()
            + findings
            + self.index.len() * (size_of::<FindingKey>() + 16)
    }

    #[inline]
    fn wave_shadow(&mut self, w: usize, wave: &Wave) -> &mut WaveShadow {
        if self.waves.get(w).is_some_and(|s| s.id == wave.id) {
            return &mut self.waves[w];
        }
        self.new_wave_shadow(w, wave)
    }

    /// The shadow of a wave seen for the first time in its slot.
    #[cold]
    fn new_wave_shadow(&mut self, w: usize, wave: &Wave) -> &mut WaveShadow {
        if self.waves.len() <= w {
            self.waves.resize_with(w + 1, || WaveShadow {
                id: u32::MAX,
                known: false,
                v: [0; VREGS],
                u: 0,
                full: RegBits::default(),
                skipped: 0,
                skipped_at: 0,
                barrier_exec: 0,
                scratch: InitBits::default(),
                busy: None,
                issues: late::WaveIssues::default(),
            });
        }
        let scratch = self.scratch_bytes * LANES as u64;
        let preloaded = self.preloaded;
        let s = &mut self.waves[w];
        if s.id != wave.id {
            let known = wave.executed == 0;
            *s = WaveShadow {
                id: wave.id,
                known,
                v: [if known { 0 } else { u32::MAX }; VREGS],
                u: if known { preloaded } else { u64::MAX },
                full: if known {
                    RegBits([0, 0, preloaded, 0])
                } else {
                    RegBits([u64::MAX, u64::MAX, u64::MAX, 0])
                },
                skipped: 0,
                skipped_at: 0,
                barrier_exec: 0,
                scratch: InitBits::new(scratch),
                busy: None,
                issues: late::WaveIssues::default(),
            };
        }
        s
    }

    /// Slot `s`'s shadow, made afresh when it described another workgroup (`fresh` as for
    /// [`Sanitizer::enter_slot`]).
    #[inline]
    fn slot_shadow(&mut self, s: usize, workgroup: u32, fresh: bool) -> &mut SlotShadow {
        if self
            .slots
            .get(s)
            .is_none_or(|x| x.workgroup != Some(workgroup))
        {
            self.new_slot_shadow(s, workgroup, fresh);
        }
        &mut self.slots[s]
    }

    /// Slot `s`'s shadow made afresh for `workgroup` (`fresh` as for
    /// [`Sanitizer::enter_slot`]): once per workgroup dispatched to the slot.
    #[cold]
    fn new_slot_shadow(&mut self, s: usize, workgroup: u32, fresh: bool) {
        if self.slots.len() <= s {
            self.slots.resize_with(s + 1, SlotShadow::default);
        }
        self.slots[s] = SlotShadow {
            workgroup: Some(workgroup),
            known: fresh,
            epoch: 0,
            init: InitBits::new(self.shared_bytes),
            race: RaceShadow::default(),
            late: late::Lates::default(),
        };
    }

    /// Queues a finding of the current instruction; sightings of one finding by several
    /// lanes merge (their lanes, and the other side's when it is the same wave).
    fn push(&mut self, f: Finding) {
        let key = f.key();
        if let Some(c) = self.pending.iter_mut().find(|c| c.key() == key) {
            c.absorb(&f);
            return;
        }
        self.pending.push(f);
    }
}
