//! The kernel sanitizer: detectors for the bugs stepping does not show (docs/sanitizer.md).
//!
//! - **races**: two waves touch the same bytes of shared or global memory, one of them
//!   with a plain (non-atomic) write, with no barrier of their workgroup between them;
//!   and one store whose lanes write different values to one address.
//! - **hazards**: a register read or overwritten while an asynchronous load still has
//!   to write it, and a store's data register overwritten before its wait.
//! - **init**: shared memory and scratch read before anything wrote them in this launch,
//!   and registers read before written (the `.arg` registers are preloaded).
//! - **sync**: lanes that were inactive at a barrier rejoining their wave, waves released
//!   from different barriers, and barriers that can never complete.
//!
//! The machine holds a [`Sanitizer`] only while a detector is on; without one it pays a
//! pointer test per memory instruction and nothing in its tight loop. A finding raises
//! [`crate::machine::Event::Finding`] the first time it is seen (later sightings of the
//! same kind at the same instructions are counted).

pub(crate) mod regs;
mod shadow;

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::code::{CodeWord, Decoded};
use crate::isa::{Counter, RegFile};
use crate::memory::Space;
use crate::trace::{AccessKind, MemTrace};
use crate::wave::{Outstanding, Wave, WaveState, LANES};
use regs::{Range, RegBits, RegSets, RegUse, Special};
use shadow::{Conflict, Groups, InitBits, RaceShadow, Ref};

/// Which detector groups are on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Checks {
    /// Shared and global races, same-instruction conflicts.
    pub races: bool,
    /// Barrier misuse.
    pub sync: bool,
    /// Uninitialised memory and registers.
    pub init: bool,
    /// Registers used before their wait.
    pub hazards: bool,
}

impl Checks {
    /// Every detector.
    pub const ALL: Checks = Checks {
        races: true,
        sync: true,
        init: true,
        hazards: true,
    };

    /// Whether any detector is on.
    pub fn any(self) -> bool {
        self.races || self.sync || self.init || self.hazards
    }

    /// Whether a group is on (`All`: every one).
    pub fn get(self, group: CheckGroup) -> bool {
        match group {
            CheckGroup::Races => self.races,
            CheckGroup::Sync => self.sync,
            CheckGroup::Init => self.init,
            CheckGroup::Hazards => self.hazards,
            CheckGroup::All => self == Checks::ALL,
        }
    }

    /// Turns a group (or all) on or off.
    pub fn set(&mut self, group: CheckGroup, on: bool) {
        match group {
            CheckGroup::Races => self.races = on,
            CheckGroup::Sync => self.sync = on,
            CheckGroup::Init => self.init = on,
            CheckGroup::Hazards => self.hazards = on,
            CheckGroup::All => {
                *self = if on { Checks::ALL } else { Checks::default() };
            }
        }
    }

    /// The groups that are on, by name (`none` when none is).
    pub fn names(self) -> String {
        let on: Vec<&str> = CheckGroup::GROUPS
            .iter()
            .filter(|g| self.get(**g))
            .map(|g| g.name())
            .collect();
        if on.is_empty() {
            "none".into()
        } else {
            on.join(" ")
        }
    }
}

/// A detector group, as `set check GROUP on|off` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckGroup {
    /// Data races and same-instruction conflicts.
    Races,
    /// Barrier misuse.
    Sync,
    /// Uninitialised reads.
    Init,
    /// Reads and writes before their wait.
    Hazards,
    /// Every group.
    All,
}

impl CheckGroup {
    /// The four groups (without `All`).
    pub const GROUPS: [CheckGroup; 4] = [
        CheckGroup::Races,
        CheckGroup::Sync,
        CheckGroup::Init,
        CheckGroup::Hazards,
    ];

    /// The name in the command language.
    pub const fn name(self) -> &'static str {
        match self {
            CheckGroup::Races => "races",
            CheckGroup::Sync => "sync",
            CheckGroup::Init => "init",
            CheckGroup::Hazards => "hazards",
            CheckGroup::All => "all",
        }
    }

    /// Parses a name.
    pub fn parse(s: &str) -> Option<CheckGroup> {
        CheckGroup::GROUPS
            .into_iter()
            .chain([CheckGroup::All])
            .find(|g| g.name() == s)
    }
}

/// What a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingKind {
    /// Two waves access the same bytes, one with a plain write, with no barrier between.
    Race,
    /// Active lanes of one store write different values to the same address.
    SameInstruction,
    /// A register is read while an outstanding load (or returning atomic) will write it.
    ReadBeforeWait,
    /// A register is overwritten while an outstanding load will write it.
    WriteBeforeWait,
    /// A store's (or atomic's) data register is overwritten before its wait.
    StoreDataOverwritten,
    /// Shared memory or scratch is read before anything wrote it in this launch.
    UninitMemory,
    /// A register is read before anything wrote it (in the lanes that read it).
    UninitRegister,
    /// Lanes that were inactive at a barrier become active again in the same wave: they
    /// skipped a barrier the rest of their wave waited at.
    BarrierDivergence,
    /// The waves of a workgroup were released from barriers at different PCs.
    BarrierMismatch,
    /// A barrier can never complete: waves of the workgroup exited or faulted.
    BarrierDeadlock,
}

impl FindingKind {
    /// The detector group that finds it.
    pub const fn group(self) -> CheckGroup {
        match self {
            FindingKind::Race | FindingKind::SameInstruction => CheckGroup::Races,
            FindingKind::ReadBeforeWait
            | FindingKind::WriteBeforeWait
            | FindingKind::StoreDataOverwritten => CheckGroup::Hazards,
            FindingKind::UninitMemory | FindingKind::UninitRegister => CheckGroup::Init,
            FindingKind::BarrierDivergence
            | FindingKind::BarrierMismatch
            | FindingKind::BarrierDeadlock => CheckGroup::Sync,
        }
    }

    /// Errors make results wrong or undefined on hardware; warnings make them depend on
    /// something the program does not control (lane order, which barrier).
    pub const fn severity(self) -> Severity {
        match self {
            FindingKind::SameInstruction | FindingKind::BarrierMismatch => Severity::Warning,
            _ => Severity::Error,
        }
    }

    /// A short name, as reports print it.
    pub const fn name(self) -> &'static str {
        match self {
            FindingKind::Race => "data race",
            FindingKind::SameInstruction => "same-instruction conflict",
            FindingKind::ReadBeforeWait => "read before wait",
            FindingKind::WriteBeforeWait => "overwrite before wait",
            FindingKind::StoreDataOverwritten => "store data overwritten before wait",
            FindingKind::UninitMemory => "uninitialised memory read",
            FindingKind::UninitRegister => "uninitialised register read",
            FindingKind::BarrierDivergence => "divergent barrier",
            FindingKind::BarrierMismatch => "barrier mismatch",
            FindingKind::BarrierDeadlock => "barrier deadlock",
        }
    }
}

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The result is wrong or undefined on hardware.
    Error,
    /// The result depends on an order the program does not fix.
    Warning,
}

/// How an instruction touched memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MemAccess {
    /// A plain read.
    Read,
    /// A plain write.
    Write,
    /// An atomic read-modify-write.
    Atomic,
}

impl MemAccess {
    /// Its name.
    pub const fn name(self) -> &'static str {
        match self {
            MemAccess::Read => "read",
            MemAccess::Write => "write",
            MemAccess::Atomic => "atomic",
        }
    }

    fn of(kind: AccessKind) -> MemAccess {
        match kind {
            AccessKind::Read => MemAccess::Read,
            AccessKind::Write => MemAccess::Write,
            AccessKind::ReadWrite => MemAccess::Atomic,
        }
    }
}

/// One instruction of one wave in a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Site {
    /// Global wave id.
    pub wave: u32,
    /// Its workgroup.
    pub workgroup: u32,
    /// The lanes concerned.
    pub lanes: u32,
    /// The instruction's address.
    pub pc: u64,
    /// How it touched memory, for memory findings.
    pub access: Option<MemAccess>,
    /// Its workgroup's barrier epoch (barriers completed before it), for races.
    pub epoch: Option<u32>,
}

impl Site {
    /// Lanes `lanes` of `wave` at `pc`, not a memory access.
    pub fn of(wave: &Wave, lanes: u32, pc: u64) -> Site {
        Site {
            wave: wave.id,
            workgroup: wave.workgroup,
            lanes,
            pc,
            access: None,
            epoch: None,
        }
    }
}

/// Every wave of a workgroup with its PC as `at` gives it, for barrier findings.
fn waves_at(group: &[Wave], at: impl Fn(&Wave) -> u64) -> Vec<WaveAt> {
    group
        .iter()
        .map(|w| WaveAt {
            wave: w.id,
            pc: at(w),
            state: w.state,
        })
        .collect()
}

/// A wave's place in a barrier finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct WaveAt {
    /// Global wave id.
    pub wave: u32,
    /// Its PC (a waiting wave's barrier).
    pub pc: u64,
    /// Its state.
    pub state: WaveState,
}

/// One finding: what, where, and the other side of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// What.
    pub kind: FindingKind,
    /// The instruction at which it was found (for a race, the later access).
    pub at: Site,
    /// The other side: the earlier access of a race, the instruction that issued the
    /// outstanding operation, the barrier the lanes skipped.
    pub other: Option<Site>,
    /// The memory space, for memory findings.
    pub space: Option<Space>,
    /// The first address concerned (global address, shared offset, scratch offset).
    pub addr: Option<u64>,
    /// Bytes at `addr`.
    pub len: u32,
    /// The register concerned.
    pub reg: Option<(RegFile, u8)>,
    /// The counter of the outstanding operation, for hazards.
    pub counter: Option<Counter>,
    /// Every wave of the workgroup, for barrier mismatches and deadlocks.
    pub waves: Vec<WaveAt>,
    /// How many times it was seen (instruction executions).
    pub count: u64,
    /// The launch's instruction count when it was first seen.
    pub first_at: u64,
}

impl Finding {
    fn new(kind: FindingKind, at: Site) -> Finding {
        Finding {
            kind,
            at,
            other: None,
            space: None,
            addr: None,
            len: 0,
            reg: None,
            counter: None,
            waves: Vec::new(),
            count: 1,
            first_at: 0,
        }
    }

    /// What makes two sightings the same finding: the kind, the two instructions (for a
    /// race, in either order), the register and the space.
    pub fn key(&self) -> FindingKey {
        let (mut a, mut b) = (self.at.pc, self.other.map(|o| o.pc));
        // A race is the same whichever of its two accesses came first.
        if let (FindingKind::Race, Some(o)) = (self.kind, b) {
            (a, b) = (a.min(o), Some(a.max(o)));
        }
        (self.kind, a, b, self.reg, self.space)
    }
}

/// What identifies a finding across sightings ([`Finding::key`]).
pub type FindingKey = (
    FindingKind,
    u64,
    Option<u64>,
    Option<(RegFile, u8)>,
    Option<Space>,
);

/// How many of a wave's outstanding operations use each register (vector registers
/// first, then uniform ones): as destination, and as store data. Kept up to date at
/// every issue and retirement, so a hazard check costs a load per register however many
/// operations are in flight.
#[derive(Debug, Clone)]
struct Busy {
    dest: [u8; 192],
    data: [u8; 192],
    /// The registers whose counts are not zero, for a quick answer.
    dest_any: RegBits,
    data_any: RegBits,
}

/// A register's index in [`Busy`].
fn busy_index(file: RegFile, reg: u8) -> usize {
    match file {
        RegFile::Vector => reg as usize & 127,
        RegFile::Uniform => 128 + (reg as usize & 63),
    }
}

/// Per resident wave: what the detectors know of it.
#[derive(Debug, Clone)]
struct WaveShadow {
    /// The global id it describes (a slot's waves change when workgroups finish).
    id: u32,
    /// Whether it was seen from its first instruction (otherwise nothing is known of
    /// what was written before: no uninitialised reads are reported).
    known: bool,
    /// Per vector register: the lanes written.
    v: Vec<u32>,
    /// Uniform registers written.
    u: u64,
    /// Vector registers written in every lane, and the uniform registers written (`u`):
    /// an instruction that reads only these needs no closer look.
    full: RegBits,
    /// Lanes inactive at a barrier this wave passed, and that barrier.
    skipped: u32,
    skipped_at: u64,
    /// Scratch bytes written (offsets in the wave's scratch).
    scratch: InitBits,
    /// Registers in use by outstanding operations (`None`: to be counted again).
    busy: Option<Box<Busy>>,
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
                let r = reg as usize;
                if self.v.len() <= r {
                    self.v.resize(r + 1, 0);
                }
                self.v[r] |= lanes;
                if self.v[r] == u32::MAX {
                    self.full.insert(RegFile::Vector, reg);
                }
            }
        }
    }
}

/// Per resident workgroup slot.
#[derive(Debug, Clone, Default)]
struct SlotShadow {
    workgroup: Option<u32>,
    known: bool,
    /// Barriers completed.
    epoch: u32,
    /// Shared bytes written.
    init: InitBits,
    /// Shared accesses for races.
    race: RaceShadow,
}

/// The sanitizer's state: detectors, shadow state, findings. Cloned with the machine
/// (snapshots share shadow pages until written).
#[derive(Debug, Clone)]
pub struct Sanitizer {
    checks: Checks,
    uses: Arc<[RegUse]>,
    /// The same as register sets.
    sets: Arc<[RegSets]>,
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
    findings: Vec<Finding>,
    index: HashMap<FindingKey, usize>,
    /// Findings first seen by the last instruction.
    fresh: Vec<usize>,
    /// The current instruction's findings.
    pending: Vec<Finding>,
    /// EXEC before the current instruction.
    exec_before: u32,
    /// The current instruction's memory accesses.
    pub(crate) trace: MemTrace,
}

impl Sanitizer {
    /// A sanitizer for a machine running `code`, with `.arg` registers `preloaded` (a
    /// bit per uniform register).
    pub(crate) fn new(
        checks: Checks,
        code: &[CodeWord],
        preloaded: u64,
        launch: &crate::program::LaunchConfig,
    ) -> Sanitizer {
        let wpg = launch.waves_per_workgroup();
        let uses: Arc<[RegUse]> = code.iter().map(RegUse::of).collect();
        Sanitizer {
            checks,
            sets: uses.iter().map(RegSets::of).collect(),
            uses,
            preloaded,
            groups: Groups::new(wpg),
            shared_bytes: launch.shared_bytes as u64,
            scratch_bytes: launch.scratch_bytes as u64,
            waves: Vec::new(),
            slots: Vec::new(),
            global: RaceShadow::default(),
            findings: Vec::new(),
            index: HashMap::new(),
            fresh: Vec::new(),
            pending: Vec::new(),
            exec_before: 0,
            trace: MemTrace::default(),
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
                w.v = vec![u32::MAX; crate::wave::VREGS];
                w.u = u64::MAX;
                w.full = RegBits([u64::MAX; 3]);
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
            self.slots
                .iter_mut()
                .for_each(|s| s.race = RaceShadow::default());
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
            .map(|s| size_of::<SlotShadow>() + s.init.bytes() + s.race.bytes())
            .sum();
        let waves: usize = self
            .waves
            .iter()
            .map(|w| {
                size_of::<WaveShadow>()
                    + w.v.capacity() * 4
                    + w.scratch.bytes()
                    + w.busy.as_ref().map_or(0, |_| size_of::<Busy>())
            })
            .sum();
        let findings: usize = self
            .findings
            .iter()
            .map(|f| size_of::<Finding>() + f.waves.len() * size_of::<WaveAt>())
            .sum();
        size_of::<Sanitizer>()
            + self.uses.len() * (size_of::<RegUse>() + size_of::<RegSets>())
            + slots
            + waves
            + self.global.bytes()
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
                v: Vec::new(),
                u: 0,
                full: RegBits::default(),
                skipped: 0,
                skipped_at: 0,
                scratch: InitBits::default(),
                busy: None,
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
                v: if known {
                    Vec::new()
                } else {
                    vec![u32::MAX; 128]
                },
                u: if known { preloaded } else { u64::MAX },
                full: if known {
                    RegBits([0, 0, preloaded])
                } else {
                    RegBits([u64::MAX; 3])
                },
                skipped: 0,
                skipped_at: 0,
                scratch: InitBits::new(scratch),
                busy: None,
            };
        }
        s
    }

    fn slot_shadow(&mut self, s: usize, workgroup: u32, fresh: bool) -> &mut SlotShadow {
        if self.slots.len() <= s {
            self.slots.resize_with(s + 1, SlotShadow::default);
        }
        if self.slots[s].workgroup != Some(workgroup) {
            self.slots[s] = SlotShadow {
                workgroup: Some(workgroup),
                known: fresh,
                epoch: 0,
                init: InitBits::new(self.shared_bytes),
                race: RaceShadow::default(),
            };
        }
        &mut self.slots[s]
    }

    /// Queues a finding of the current instruction; sightings of one finding by several
    /// lanes merge (their lanes, and the other side's when it is the same wave).
    fn push(&mut self, f: Finding) {
        let key = f.key();
        if let Some(c) = self.pending.iter_mut().find(|c| c.key() == key) {
            c.at.lanes |= f.at.lanes;
            if let (Some(o), Some(n)) = (&mut c.other, f.other) {
                if o.wave == n.wave {
                    o.lanes |= n.lanes;
                }
            }
            return;
        }
        self.pending.push(f);
    }

    /// Makes sure slot `s`'s shadow describes `wave`'s workgroup (`group_fresh`: whether
    /// none of its waves has executed anything yet, asked only for a new workgroup).
    #[inline]
    pub(crate) fn enter_slot(&mut self, s: usize, wave: &Wave, group_fresh: impl FnOnce() -> bool) {
        if self
            .slots
            .get(s)
            .is_none_or(|x| x.workgroup != Some(wave.workgroup))
        {
            let fresh = group_fresh();
            self.slot_shadow(s, wave.workgroup, fresh);
        }
    }

    /// Before wave `w` executes `d` at `pc`: register hazards and uninitialised register
    /// reads (they depend only on the state before it).
    #[inline]
    pub(crate) fn before(
        &mut self,
        w: usize,
        s: usize,
        wave: &Wave,
        group_fresh: impl FnOnce() -> bool,
        d: &Decoded,
        pc: u64,
    ) {
        self.fresh.clear();
        self.pending.clear();
        if self.trace.access.is_some() {
            self.trace.clear();
        }
        self.exec_before = wave.exec;
        self.enter_slot(s, wave, group_fresh);
        let Some(u) = self.uses.get((pc / 4) as usize).copied() else {
            return;
        };
        let site = |lanes: u32| Site::of(wave, lanes, pc);
        if self.checks.hazards {
            let known = self
                .waves
                .get(w)
                .is_some_and(|x| x.id == wave.id && x.busy.is_some());
            // Only waits and issues retire anything.
            if !known || d.counter.is_some() || matches!(d.op, crate::exec::Op::Wait(_)) {
                self.retire(w, wave, d);
            }
            let sets = self
                .sets
                .get((pc / 4) as usize)
                .copied()
                .unwrap_or_default();
            let in_use = self
                .waves
                .get(w)
                .and_then(|x| x.busy.as_deref())
                .is_some_and(|b| {
                    sets.reads.meets(b.dest_any) || sets.writes.meets(b.dest_any.union(b.data_any))
                });
            if in_use {
                self.hazards(w, wave, &u, pc);
            }
        }
        if self.checks.init {
            let exec = wave.exec;
            let reads = self.sets.get((pc / 4) as usize).map(|x| x.reads);
            let shadow = self.wave_shadow(w, wave);
            if !shadow.known || reads.is_some_and(|r| r.within(shadow.full)) {
                return;
            }
            let mut found = Vec::new();
            for (r, gather) in u.reads() {
                let lanes = match r.file {
                    RegFile::Vector if gather => crate::exec::xlane::source_lanes(wave, d),
                    RegFile::Vector => exec,
                    // A uniform register is one value, read whatever EXEC is.
                    RegFile::Uniform => 1,
                };
                for reg in r.regs() {
                    let written = match r.file {
                        RegFile::Uniform => u32::from(shadow.u >> reg & 1 == 1),
                        RegFile::Vector => shadow.v.get(reg as usize).copied().unwrap_or(0),
                    };
                    let missing = match r.file {
                        RegFile::Uniform if written == 0 => exec.max(1),
                        RegFile::Uniform => 0,
                        RegFile::Vector => lanes & !written,
                    };
                    if missing != 0 {
                        found.push((r.file, reg, missing));
                    }
                }
            }
            for (file, reg, lanes) in found {
                let mut f = Finding::new(FindingKind::UninitRegister, site(lanes));
                f.reg = Some((file, reg));
                self.push(f);
            }
        }
    }

    /// Registers `u` reads or writes while an outstanding operation still uses them.
    fn hazards(&mut self, w: usize, wave: &Wave, u: &RegUse, pc: u64) {
        // The registers in use, from the counts; the details only for those.
        let mut hits: Vec<(FindingKind, RegFile, u8)> = Vec::new();
        if let Some(busy) = self.waves.get(w).and_then(|x| x.busy.as_deref()) {
            let used =
                |counts: &[u8; 192], file: RegFile, reg: u8| counts[busy_index(file, reg)] > 0;
            for (r, _) in u.reads() {
                for reg in r.regs().filter(|&reg| used(&busy.dest, r.file, reg)) {
                    hits.push((FindingKind::ReadBeforeWait, r.file, reg));
                }
            }
            for r in u.writes() {
                for reg in r.regs() {
                    if used(&busy.dest, r.file, reg) {
                        hits.push((FindingKind::WriteBeforeWait, r.file, reg));
                    }
                    if used(&busy.data, r.file, reg) {
                        hits.push((FindingKind::StoreDataOverwritten, r.file, reg));
                    }
                }
            }
        }
        let site = |lanes: u32| Site::of(wave, lanes, pc);
        for (kind, file, reg) in hits {
            // The issuing operation: the newest that writes the register, or for store
            // data, every outstanding store whose data it is.
            let issued: Vec<(Counter, u64)> = match kind {
                FindingKind::StoreDataOverwritten => Counter::ALL
                    .into_iter()
                    .flat_map(|c| wave.outstanding[c.index()].iter().map(move |o| (c, o.pc)))
                    .filter(|(_, opc)| {
                        self.uses
                            .get((opc / 4) as usize)
                            .and_then(|x| x.data)
                            .is_some_and(|d| d.file == file && d.contains(reg))
                    })
                    .collect(),
                _ => wave
                    .pending_write(file, reg)
                    .map(|(c, o)| (c, o.pc))
                    .into_iter()
                    .collect(),
            };
            for (c, opc) in issued {
                let mut f = Finding::new(kind, site(wave.exec));
                f.other = Some(Site { pc: opc, ..site(0) });
                f.reg = Some((file, reg));
                f.counter = Some(c);
                self.push(f);
            }
        }
    }

    /// Adds (`delta` 1) or removes (`delta` -1) an outstanding operation's registers.
    fn count_busy(uses: &[RegUse], busy: &mut Busy, o: &Outstanding, delta: i8) {
        let add = |counts: &mut [u8; 192], any: &mut RegBits, r: Range| {
            for reg in r.regs() {
                let c = &mut counts[busy_index(r.file, reg)];
                *c = c.wrapping_add_signed(delta);
                if *c == 0 {
                    any.remove(r.file, reg);
                } else {
                    any.insert(r.file, reg);
                }
            }
        };
        if let Some(r) = o.regs {
            let r = Range {
                file: r.file,
                first: r.first,
                count: r.count,
            };
            add(&mut busy.dest, &mut busy.dest_any, r);
        }
        if let Some(d) = uses.get((o.pc / 4) as usize).and_then(|x| x.data) {
            add(&mut busy.data, &mut busy.data_any, d);
        }
    }

    /// Brings the wave's register-use counts up to date before `d` executes: counted
    /// afresh when unknown, and the operations `d` retires removed (a wait, or the oldest
    /// one an issue to a full counter pushes out; both happen whatever else `d` does).
    fn retire(&mut self, w: usize, wave: &Wave, d: &Decoded) {
        self.wave_shadow(w, wave);
        let (uses, shadow) = (&self.uses, &mut self.waves[w]);
        let busy = shadow.busy.get_or_insert_with(|| {
            let mut b = Box::new(Busy {
                dest: [0; 192],
                data: [0; 192],
                dest_any: RegBits::default(),
                data_any: RegBits::default(),
            });
            for q in &wave.outstanding {
                for o in q {
                    Self::count_busy(uses, &mut b, o, 1);
                }
            }
            b
        });
        let mut retire = |c: Counter, keep: usize| {
            let q = &wave.outstanding[c.index()];
            for o in q.iter().take(q.len().saturating_sub(keep)) {
                Self::count_busy(uses, busy, o, -1);
            }
        };
        match d.op {
            crate::exec::Op::Wait(Some(c)) => retire(c, d.instr.imm.max(0) as usize),
            crate::exec::Op::Wait(None) => Counter::ALL.into_iter().for_each(|c| retire(c, 0)),
            _ => {}
        }
        if let Some(c) = d.counter {
            retire(c, crate::wave::COUNTER_MAX - 1);
        }
    }

    /// After wave `w` (in slot `s`) executed the instruction at `pc` (`ok`: without a
    /// fault): memory accesses against the shadow state, register writes, barrier skips.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) fn after(
        &mut self,
        w: usize,
        s: usize,
        wave: &Wave,
        d: &Decoded,
        pc: u64,
        ok: bool,
        count: u64,
    ) {
        if ok && self.checks.hazards {
            if let Some(c) = d.counter {
                self.wave_shadow(w, wave);
                let (uses, shadow) = (&self.uses, &mut self.waves[w]);
                if let (Some(busy), Some(o)) = (
                    shadow.busy.as_deref_mut(),
                    wave.outstanding[c.index()].back(),
                ) {
                    Self::count_busy(uses, busy, o, 1);
                }
            }
        }
        if ok {
            let exec = self.exec_before;
            if self.checks.init {
                let writes = self.sets.get((pc / 4) as usize).map(|x| x.writes);
                if let Some(&u) = self.uses.get((pc / 4) as usize) {
                    let shadow = self.wave_shadow(w, wave);
                    // Registers written in every lane already: nothing to mark.
                    if !writes.is_some_and(|x| x.within(shadow.full)) {
                        let lanes = match u.special {
                            Special::WriteLane(l) => 1u32.checked_shl(l as u32).unwrap_or(0),
                            _ => exec,
                        };
                        for r in u.writes() {
                            for reg in r.regs() {
                                shadow.mark(r.file, reg, lanes);
                            }
                        }
                    }
                }
            }
            if self.checks.sync {
                let shadow = self.wave_shadow(w, wave);
                if matches!(d.op, crate::exec::Op::Barrier) {
                    shadow.skipped |= !exec;
                    shadow.skipped_at = pc;
                }
                let back = wave.exec & shadow.skipped;
                if back != 0 {
                    shadow.skipped &= !wave.exec;
                    let barrier = shadow.skipped_at;
                    let mut f =
                        Finding::new(FindingKind::BarrierDivergence, Site::of(wave, back, pc));
                    f.other = Some(Site::of(wave, back, barrier));
                    self.push(f);
                }
            }
            if self.trace.access.is_some() {
                self.memory(w, s, wave, pc);
            }
        }
        self.commit(count);
    }

    /// Checks the current instruction's memory accesses.
    fn memory(&mut self, w: usize, s: usize, wave: &Wave, pc: u64) {
        let trace = std::mem::take(&mut self.trace);
        let Some((space, kind)) = trace.access else {
            self.trace = trace;
            return;
        };
        let access = MemAccess::of(kind);
        let len = trace.len;
        let site = Site {
            access: Some(access),
            ..Site::of(wave, 0, pc)
        };
        let epoch = self.slot_shadow(s, wave.workgroup, false).epoch;
        // Uninitialised reads: shared and scratch.
        if self.checks.init && space != Space::Global {
            let known = match space {
                Space::Shared => self.slots[s].known,
                _ => self.wave_shadow(w, wave).known,
            };
            let bits = match space {
                Space::Shared => &mut self.slots[s].init,
                _ => &mut self.waves[w].scratch,
            };
            let check = known && access != MemAccess::Write;
            let (missing, first) =
                bits.access_all(&trace.entries, len, check, access != MemAccess::Read);
            if missing != 0 {
                let mut f = Finding::new(
                    FindingKind::UninitMemory,
                    Site {
                        lanes: missing,
                        ..site
                    },
                );
                f.space = Some(space);
                f.addr = first;
                f.len = len;
                self.push(f);
            }
        }
        if self.checks.races && space != Space::Scratch {
            let groups = self.groups;
            let me = Ref::new(wave.id, epoch, pc, access);
            let mut conflicts: Vec<(Conflict, u8, u64)> = Vec::new();
            let shadow = match space {
                Space::Shared => &mut self.slots[s].race,
                _ => &mut self.global,
            };
            shadow.access_all(&trace.entries, len, me, groups, &mut |e, c| {
                conflicts.push((c, e.lane, e.addr));
            });
            for (c, lane, addr) in conflicts {
                let mut f = Finding::new(
                    FindingKind::Race,
                    Site {
                        lanes: 1 << lane,
                        epoch: Some(epoch),
                        ..site
                    },
                );
                f.other = Some(c.prior.site(groups));
                f.space = Some(space);
                f.addr = Some(addr);
                f.len = len;
                self.push(f);
            }
            if access == MemAccess::Write && trace.entries.len() > 1 {
                self.same_instruction(&trace, space, site);
            }
        }
        self.trace = trace;
    }

    /// Lanes of one store writing different bytes to the same address.
    fn same_instruction(&mut self, trace: &MemTrace, space: Space, site: Site) {
        let len = trace.len as u64;
        // Lanes storing to ascending, disjoint addresses (the common case) cannot conflict.
        if trace
            .entries
            .windows(2)
            .all(|p| p[0].addr.saturating_add(len) <= p[1].addr)
        {
            return;
        }
        // At most 32 entries (one per lane): sorted on the stack, by address then lane.
        let mut buf = [(0u64, 0u8, 0u128); LANES];
        let n = trace.entries.len().min(LANES);
        for (k, e) in trace.entries.iter().take(n).enumerate() {
            buf[k] = (e.addr, e.lane, trace.data.get(k).copied().unwrap_or(0));
        }
        let order = &mut buf[..n];
        order.sort_unstable_by_key(|e| (e.0, e.1));
        let mut lanes = 0u32;
        let mut first = None;
        for (i, a) in order.iter().enumerate() {
            for b in &order[i + 1..] {
                if b.0 >= a.0 + len {
                    break;
                }
                // Compare the overlapping bytes.
                let shift = b.0 - a.0;
                let overlap = len - shift;
                let mask = if overlap >= 16 {
                    u128::MAX
                } else {
                    (1u128 << (8 * overlap)) - 1
                };
                if (a.2 >> (8 * shift)) & mask != b.2 & mask {
                    lanes |= 1 << a.1 | 1 << b.1;
                    first.get_or_insert(b.0);
                }
            }
        }
        if lanes != 0 {
            let mut f = Finding::new(FindingKind::SameInstruction, Site { lanes, ..site });
            f.space = Some(space);
            f.addr = first;
            f.len = trace.len;
            self.push(f);
        }
    }

    /// The waves of slot `s` are all at a barrier and about to be released.
    /// `last`: the wave that arrived last (its barrier completes the set).
    pub(crate) fn release(&mut self, s: usize, group: &[Wave], last: &Wave) {
        let Some(first) = group.first() else {
            return;
        };
        let epoch = {
            let slot = self.slot_shadow(s, first.workgroup, false);
            slot.epoch += 1;
            slot.epoch
        };
        if !self.checks.sync {
            return;
        }
        // A waiting wave's PC is past its (32-bit) barrier.
        let at = |w: &Wave| w.pc.wrapping_sub(4);
        if group.iter().any(|w| at(w) != at(first)) {
            let side = |w: &Wave| Site {
                epoch: Some(epoch - 1),
                ..Site::of(w, w.exec, at(w))
            };
            let mut f = Finding::new(FindingKind::BarrierMismatch, side(last));
            f.other = group.iter().find(|w| at(w) != at(last)).map(side);
            f.waves = waves_at(group, at);
            self.push(f);
        }
    }

    /// A barrier of `group` can never complete.
    pub(crate) fn deadlock(&mut self, group: &[Wave], count: u64) {
        if !self.checks.sync {
            return;
        }
        let Some(waiting) = group.iter().find(|w| w.state == WaveState::AtBarrier) else {
            return;
        };
        let site = |w: &Wave, pc: u64| Site::of(w, w.exec, pc);
        // Waiting and exited waves are past their (32-bit) barrier or `end`; a faulted
        // wave is at the instruction that faulted.
        let at = |w: &Wave| match w.state {
            WaveState::AtBarrier | WaveState::Exited => w.pc.wrapping_sub(4),
            _ => w.pc,
        };
        let mut f = Finding::new(FindingKind::BarrierDeadlock, site(waiting, at(waiting)));
        if let Some(gone) = group.iter().find(|w| !w.alive()) {
            f.other = Some(site(gone, at(gone)));
        }
        f.waves = waves_at(group, at);
        // A deadlock is reported again each time the machine is asked to run on: it is one
        // sighting, not more.
        if self.index.contains_key(&f.key()) {
            return;
        }
        self.push(f);
        self.commit(count);
    }

    /// Merges the current instruction's findings into the list.
    #[inline]
    fn commit(&mut self, count: u64) {
        if !self.pending.is_empty() {
            self.commit_pending(count);
        }
    }

    #[cold]
    fn commit_pending(&mut self, count: u64) {
        for mut f in std::mem::take(&mut self.pending) {
            let key = f.key();
            match self.index.get(&key) {
                Some(&i) => self.findings[i].count += 1,
                None => {
                    f.first_at = count;
                    self.index.insert(key, self.findings.len());
                    self.fresh.push(self.findings.len());
                    self.findings.push(f);
                }
            }
        }
    }

    /// A debugger write of `len` bytes at `off` (in the shared memory of slot `s`, or in
    /// the scratch of wave `w`): the bytes count as written. `group_fresh` as for
    /// [`Sanitizer::enter_slot`].
    pub(crate) fn note_memory_write(
        &mut self,
        space: Space,
        (s, w): (usize, usize),
        wave: &Wave,
        group_fresh: impl FnOnce() -> bool,
        off: u64,
        len: u64,
    ) {
        match space {
            Space::Shared => {
                self.enter_slot(s, wave, group_fresh);
                self.slots[s].init.set(off, len);
            }
            Space::Scratch => self.wave_shadow(w, wave).scratch.set(off, len),
            Space::Global => {}
        }
    }

    /// A debugger write to a register of wave `w`: the lanes count as written.
    pub(crate) fn note_register_write(
        &mut self,
        w: usize,
        wave: &Wave,
        file: RegFile,
        reg: u8,
        lanes: u32,
    ) {
        self.wave_shadow(w, wave).mark(file, reg, lanes);
    }
}
