//! The finding model: what a detector reports, the instructions on each side of it, and
//! the key that makes later sightings of one bug count instead of repeat. Its text is the
//! debugger's (`debug/findings.rs`).

use serde::{Deserialize, Serialize};

use super::CheckGroup;
use crate::isa::{Counter, RegFile};
use crate::memory::Space;
use crate::trace::AccessKind;
use crate::wave::{Wave, WaveState};

/// The kind of bug a finding reports; each belongs to one detector group
/// ([`FindingKind::group`]) and has a fixed [`Severity`].
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
    /// Active lanes of a cross-lane instruction (a shuffle, swizzle, lane read or
    /// derivative) read a lane that is inactive in EXEC there: its value is whatever the
    /// lane last held.
    InactiveLaneRead,
}

impl FindingKind {
    /// The detector group that finds it (it is reported only while that group is on).
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
            FindingKind::InactiveLaneRead => CheckGroup::Xlane,
        }
    }

    /// Whether its two sides are alike, so that a sighting with them the other way round
    /// is the same finding: a race (either access may come first) and a barrier mismatch
    /// (either barrier's wave may arrive last).
    pub const fn symmetric(self) -> bool {
        matches!(self, FindingKind::Race | FindingKind::BarrierMismatch)
    }

    /// Whether its two sides can be in different waves, so that each side has its own
    /// other waves ([`Finding::also`], [`Finding::also_other`]): a race, a barrier mismatch
    /// and a deadlock. The others' second side is in the first side's wave (the load of a
    /// hazard, the barrier of a divergence, the source lanes of a cross-lane read).
    pub const fn sides_in_two_waves(self) -> bool {
        matches!(
            self,
            FindingKind::Race | FindingKind::BarrierMismatch | FindingKind::BarrierDeadlock
        )
    }

    /// Every kind, in declaration order.
    pub const ALL: [FindingKind; 11] = [
        FindingKind::Race,
        FindingKind::SameInstruction,
        FindingKind::ReadBeforeWait,
        FindingKind::WriteBeforeWait,
        FindingKind::StoreDataOverwritten,
        FindingKind::UninitMemory,
        FindingKind::UninitRegister,
        FindingKind::BarrierDivergence,
        FindingKind::BarrierMismatch,
        FindingKind::BarrierDeadlock,
        FindingKind::InactiveLaneRead,
    ];

    /// Its name in JSON and on the command line (`kind`): `race`, `barrier-mismatch`...
    pub const fn id(self) -> &'static str {
        match self {
            FindingKind::Race => "race",
            FindingKind::SameInstruction => "same-instruction",
            FindingKind::ReadBeforeWait => "read-before-wait",
            FindingKind::WriteBeforeWait => "write-before-wait",
            FindingKind::StoreDataOverwritten => "store-data-overwritten",
            FindingKind::UninitMemory => "uninit-memory",
            FindingKind::UninitRegister => "uninit-register",
            FindingKind::BarrierDivergence => "barrier-divergence",
            FindingKind::BarrierMismatch => "barrier-mismatch",
            FindingKind::BarrierDeadlock => "barrier-deadlock",
            FindingKind::InactiveLaneRead => "inactive-lane-read",
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

    /// A short lowercase name, as reports print it (`data race`, `barrier deadlock`).
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
            FindingKind::InactiveLaneRead => "read of an inactive lane",
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

/// How an instruction on one side of a finding touched memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MemAccess {
    /// A plain (non-atomic) read.
    Read,
    /// A plain (non-atomic) write.
    Write,
    /// An atomic read-modify-write (never races with another atomic).
    Atomic,
}

impl MemAccess {
    /// Its lowercase name as reports print it: `read`, `write`, `atomic`.
    pub const fn name(self) -> &'static str {
        match self {
            MemAccess::Read => "read",
            MemAccess::Write => "write",
            MemAccess::Atomic => "atomic",
        }
    }

    /// The access a semantics' access kind is, for the detectors.
    pub(super) fn of(kind: AccessKind) -> MemAccess {
        match kind {
            AccessKind::Read => MemAccess::Read,
            AccessKind::Write => MemAccess::Write,
            AccessKind::ReadWrite => MemAccess::Atomic,
        }
    }
}

/// An atomic (or acquire fence) that a race's [`MissingFence`] names: its PC and the wave
/// that executed it,
/// which is not always a side's wave (a barrier passes one wave's release, or the atomic
/// it read, on to the other waves of its workgroup).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FenceAtomic {
    /// PC of the atomic.
    pub pc: u64,
    /// The global id of the wave that executed it.
    pub wave: u32,
    /// That wave's workgroup.
    pub workgroup: u32,
}

/// Why a race's two accesses are unordered, when they are not in one barrier interval of
/// one workgroup (docs/memory.md): the half of release/acquire through an atomic that is
/// missing. A release is the earlier wave retiring its access (`wait.vst` for stores,
/// `wait.vm` for loads, or `wait.all`) before an atomic; an acquire is the later wave
/// retiring a `cache.inv.l1` or `cache.inv.l2` issued after an atomic of its own on the
/// same address, later in the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "missing")]
pub enum MissingFence {
    /// No atomic of the later wave came after an atomic of the earlier one on the same
    /// address: nothing synchronises them.
    Synchronisation,
    /// The later wave acquired (or read) the earlier wave's atomic `atomic`, but the
    /// earlier access was not retired before that atomic (no wait before it, or the
    /// access came after it).
    Release {
        /// The atomic that published the earlier wave's release.
        atomic: FenceAtomic,
    },
    /// The earlier wave released its access through an atomic that the later wave's
    /// atomic `atomic` came after, but no acquire fence retired after it.
    Acquire {
        /// The atomic the later wave read the release through.
        atomic: FenceAtomic,
    },
    /// Both halves: the later wave's atomic `acquire` came after the earlier wave's
    /// `release`, which did not release the access, and no acquire followed either.
    ReleaseAndAcquire {
        /// The earlier wave's atomic.
        release: FenceAtomic,
        /// The later wave's atomic.
        acquire: FenceAtomic,
    },
    /// The earlier wave's access was released through the atomic `release` on an address
    /// that the later wave's atomic `acquire` read, but that atomic read it before the
    /// release was made: nothing made the later wave wait for it (a flag read once
    /// instead of spun on, a ticket taken too early).
    ReadBeforeRelease {
        /// The atomic that released the access on that address.
        release: FenceAtomic,
        /// The later wave's atomic.
        acquire: FenceAtomic,
        /// Whether a retired acquire fence followed `acquire` (if not, that is missing
        /// too).
        acquired: bool,
    },
    /// The earlier access, of the later access's workgroup, came before a barrier between
    /// them, but its wave had not retired it when it arrived there (no `wait` on its
    /// counter): a barrier orders only retired accesses (docs/memory.md).
    NotRetired {
        /// PC of the barrier the earlier wave passed with the access outstanding.
        barrier: u64,
        /// The counter whose wait would have retired it.
        counter: crate::isa::Counter,
    },
    /// The later wave's side did issue an acquire fence that takes the release, but it
    /// was not retired before the access: a uniform load (`sm`), a store or a
    /// non-returning atomic (`vst`) issued after the fence with no `wait.vm` between
    /// (`barrier` `None`), or the fence of another wave of the workgroup, not retired
    /// when that wave reached the barrier at `barrier` (a barrier passes on only retired
    /// fences).
    AcquireNotRetired {
        /// The fence (`cache.inv.l1` or `cache.inv.l2`) and the wave that issued it.
        fence: FenceAtomic,
        /// PC of the barrier its wave passed with it outstanding, if that is what ordered
        /// the access after it.
        barrier: Option<u64>,
    },
    /// The clocks that would tell passed their bound of waves (docs/sanitizer.md): a
    /// release past it was not kept, so the race may be one the program's fences order.
    Bound,
    /// The earlier wave is 2,048 or more release generations past the start (records keep
    /// a generation modulo 2^11, docs/sanitizer.md), and a release of it covers an access
    /// that many generations older than the one the record is taken for: the race may be
    /// one the program's fences order.
    GenerationBound,
}

impl MissingFence {
    /// Its name in `check --json` (`missing`): `synchronisation`, `release`, `acquire`,
    /// `release-and-acquire`, `read-before-release`, `not-retired`,
    /// `acquire-not-retired`, `bound` or `generation-bound`.
    pub const fn name(self) -> &'static str {
        match self {
            MissingFence::Synchronisation => "synchronisation",
            MissingFence::Release { .. } => "release",
            MissingFence::Acquire { .. } => "acquire",
            MissingFence::ReleaseAndAcquire { .. } => "release-and-acquire",
            MissingFence::ReadBeforeRelease { .. } => "read-before-release",
            MissingFence::NotRetired { .. } => "not-retired",
            MissingFence::AcquireNotRetired { .. } => "acquire-not-retired",
            MissingFence::Bound => "bound",
            MissingFence::GenerationBound => "generation-bound",
        }
    }

    /// The atomics it names: the release side's and the acquire side's (for
    /// `AcquireNotRetired`, the unretired fence).
    pub const fn atomics(self) -> (Option<FenceAtomic>, Option<FenceAtomic>) {
        match self {
            MissingFence::Synchronisation
            | MissingFence::Bound
            | MissingFence::GenerationBound
            | MissingFence::NotRetired { .. } => (None, None),
            MissingFence::Release { atomic } => (Some(atomic), None),
            MissingFence::Acquire { atomic }
            | MissingFence::AcquireNotRetired { fence: atomic, .. } => (None, Some(atomic)),
            MissingFence::ReleaseAndAcquire { release, acquire }
            | MissingFence::ReadBeforeRelease {
                release, acquire, ..
            } => (Some(release), Some(acquire)),
        }
    }
}

/// One instruction of one wave in a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Site {
    /// The wave's global id (unique in the launch, unlike its resident index).
    pub wave: u32,
    /// The wave's workgroup id (0 to grid - 1).
    pub workgroup: u32,
    /// The lanes concerned, a bit per lane, bit i = lane i (0: not about lanes).
    pub lanes: u32,
    /// The instruction's byte address in the code.
    pub pc: u64,
    /// How it touched memory, for memory findings (left out of JSON otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access: Option<MemAccess>,
    /// Its workgroup's barrier epoch (barriers completed before it), for races and
    /// barrier findings (left out of JSON otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
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

/// A wave's place in a barrier finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct WaveAt {
    /// The wave's global id.
    pub wave: u32,
    /// The barrier it waits at (or the instruction it exited or faulted at).
    pub pc: u64,
    /// Whether it waits at a barrier, exited, faulted or is still running.
    pub state: WaveState,
}

/// Another wave a finding was seen in, with its own lanes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct WaveLanes {
    /// The wave's global id.
    pub wave: u32,
    /// Its lanes concerned (bit per lane).
    pub lanes: u32,
}

/// Bytes of memory: `len` from `addr`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ByteRange {
    /// The first byte's address (global address, shared offset, scratch offset).
    pub addr: u64,
    /// How many bytes.
    pub len: u64,
}

impl ByteRange {
    /// The bytes `addrs` (sorted, no repeats) as ranges of consecutive addresses, at most
    /// [`FINDING_LIST_MAX`].
    pub fn runs(addrs: &[u64]) -> Vec<ByteRange> {
        let mut out: Vec<ByteRange> = Vec::new();
        for &a in addrs {
            if let Some(r) = out.last_mut().filter(|r| r.addr.saturating_add(r.len) == a) {
                r.len += 1;
            } else if out.len() >= FINDING_LIST_MAX {
                break;
            } else {
                out.push(ByteRange { addr: a, len: 1 });
            }
        }
        out
    }

    /// Ranges sorted by address, the overlapping and adjacent ones merged, at most
    /// [`FINDING_LIST_MAX`].
    pub fn merged(mut ranges: Vec<ByteRange>) -> Vec<ByteRange> {
        ranges.sort_unstable_by_key(|r| r.addr);
        let mut out: Vec<ByteRange> = Vec::new();
        for r in ranges {
            match out.last_mut() {
                Some(l) if l.addr.saturating_add(l.len) >= r.addr => {
                    let end = l
                        .addr
                        .saturating_add(l.len)
                        .max(r.addr.saturating_add(r.len));
                    l.len = end - l.addr;
                }
                _ => out.push(r),
            }
        }
        out.truncate(FINDING_LIST_MAX);
        out
    }
}

/// The most other waves and addresses a finding lists (the count goes on past them).
pub const FINDING_LIST_MAX: usize = 64;

/// One finding: what, where, and the other side of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// Which bug it is.
    pub kind: FindingKind,
    /// The instruction at which it was found (for a race, the later access).
    pub at: Site,
    /// The other side: the earlier access of a race, the instruction that issued the
    /// outstanding operation, the barrier the lanes skipped.
    ///
    /// Here and below, a field that does not apply to the finding is left out of its
    /// serialisation (`check --json`), never written as an empty or zero placeholder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other: Option<Site>,
    /// The memory space, for memory findings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub space: Option<Space>,
    /// The first address concerned (global address, shared offset, scratch offset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub addr: Option<u64>,
    /// Bytes concerned from `addr` (0 when the finding is not about memory).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub len: u32,
    /// The register concerned, for register findings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reg: Option<(RegFile, u8)>,
    /// The counter of the outstanding operation, for hazards.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counter: Option<Counter>,
    /// For a race not explained by one barrier interval: the missing half of
    /// release/acquire (always set for races between workgroups).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fence: Option<MissingFence>,
    /// Every wave of the workgroup, for barrier mismatches and deadlocks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub waves: Vec<WaveAt>,
    /// The other waves its first side (`at`) was seen in, each with its lanes (`at` has
    /// the first wave's own lanes), at most [`FINDING_LIST_MAX`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<WaveLanes>,
    /// The other waves its second side (`other`) was seen in, each with its lanes, at
    /// most [`FINDING_LIST_MAX`]: only for a finding whose two sides can be in different
    /// waves (a race, a barrier mismatch, a deadlock), the earlier accesses of other waves
    /// that the sightings in the waves of `also` (or in `at`'s) met.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also_other: Vec<WaveLanes>,
    /// Every address concerned when lanes touched more than one (an uninitialised read
    /// of several words), sorted, at most [`FINDING_LIST_MAX`]; `addr` is the first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub addrs: Vec<u64>,
    /// For an uninitialised read of words some bytes of which were written: the bytes
    /// nothing wrote, as ranges, sorted and merged, at most [`FINDING_LIST_MAX`] (empty
    /// when no byte of the words read was written).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unwritten: Vec<ByteRange>,
    /// How many times it was seen (instruction executions), at least 1.
    pub count: u64,
    /// The launch's wave-instruction count ([`crate::machine::Stats::wave_instructions`])
    /// when it was first seen.
    pub first_at: u64,
    /// For a read of an inactive lane reported by the debugger: where the source lanes'
    /// values were last written before its first sighting, newest first, found in the
    /// time-travel record (`None`: not looked up, as in `wavedbg check`; source lanes no
    /// entry names were not written before it in this launch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written: Option<Vec<SourceWrite>>,
}

/// For `skip_serializing_if`: a length of 0 is "not about memory".
fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The instruction that last wrote some source lanes of a cross-lane read
/// ([`Finding::written`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SourceWrite {
    /// The source lanes whose value it wrote (bit per lane).
    pub lanes: u32,
    /// The writing wave's global id.
    pub wave: u32,
    /// The writing instruction's byte address.
    pub pc: u64,
    /// The launch's instruction count right before it (`goto` takes it).
    pub count: u64,
}

impl Finding {
    /// A first sighting of `kind` at `at`, with no other side or details yet.
    pub(super) fn new(kind: FindingKind, at: Site) -> Finding {
        Finding {
            kind,
            at,
            other: None,
            space: None,
            addr: None,
            len: 0,
            reg: None,
            counter: None,
            fence: None,
            waves: Vec::new(),
            also: Vec::new(),
            also_other: Vec::new(),
            addrs: Vec::new(),
            unwritten: Vec::new(),
            count: 1,
            first_at: 0,
            written: None,
        }
    }

    /// Takes in another sighting of the same finding ([`Finding::key`] equal): its lanes
    /// join `at`'s when in the same wave and are listed in [`Finding::also`] when not; the
    /// other side's lanes join `other`'s when in the same wave and are listed in
    /// [`Finding::also_other`] when not (for sides in different waves); its addresses join
    /// [`Finding::addrs`]. A race seen the other way round (its later access at this
    /// one's earlier instruction) is turned round first, so each wave's lanes stay on the
    /// side of the instruction they executed.
    pub fn absorb(&mut self, f: &Finding) {
        // Its first side, second side, and the other waves of each.
        let (at, other, also, also_other) = match (self.kind.symmetric(), f.other) {
            (true, Some(o)) if f.at.pc != self.at.pc => {
                (o, Some(f.at), &f.also_other[..], &f.also[..])
            }
            _ => (f.at, f.other, &f.also[..], &f.also_other[..]),
        };
        let first = WaveLanes {
            wave: at.wave,
            lanes: at.lanes,
        };
        join_side(&mut self.at, &mut self.also, first, also);
        // The second side's waves, where the two sides can be different waves' (a hazard's
        // load is its own wave's: only the first wave's lanes join).
        if let (Some(o), Some(n)) = (&mut self.other, other) {
            let second = WaveLanes {
                wave: n.wave,
                lanes: n.lanes,
            };
            if self.kind.sides_in_two_waves() {
                join_side(o, &mut self.also_other, second, also_other);
            } else if n.wave == o.wave {
                o.lanes |= n.lanes;
            }
        }
        // An uninitialised read lists every word read (the key has no address: a loop
        // reading word after word is one finding).
        if self.kind == FindingKind::UninitMemory {
            let mine = if self.addrs.is_empty() {
                self.addr.as_slice()
            } else {
                &self.addrs[..]
            };
            let theirs = if f.addrs.is_empty() {
                f.addr.as_slice()
            } else {
                &f.addrs[..]
            };
            let mut all: Vec<u64> = mine.iter().chain(theirs).copied().collect();
            all.sort_unstable();
            all.dedup();
            all.truncate(FINDING_LIST_MAX);
            // The unwritten bytes: a sighting with none listed read only wholly
            // unwritten words (each of its words is a range then).
            if !self.unwritten.is_empty() || !f.unwritten.is_empty() {
                let words = |x: &Finding, list: &[u64]| -> Vec<ByteRange> {
                    if x.unwritten.is_empty() {
                        let len = u64::from(x.len.max(1));
                        list.iter().map(|&addr| ByteRange { addr, len }).collect()
                    } else {
                        x.unwritten.clone()
                    }
                };
                let mut ranges = words(self, mine);
                ranges.extend(words(f, theirs));
                self.unwritten = ByteRange::merged(ranges);
            }
            self.addr = all.first().copied().or(self.addr);
            if all.len() > 1 {
                self.addrs = all;
            }
        }
    }

    /// What makes two sightings the same finding: the kind, the two instructions (for a
    /// race or a barrier mismatch, in either order), the register and the space.
    pub fn key(&self) -> FindingKey {
        let (mut a, mut b) = (self.at.pc, self.other.map(|o| o.pc));
        // A race is the same whichever of its two accesses came first, a mismatch whichever
        // barrier's wave arrived last.
        if let (true, Some(o)) = (self.kind.symmetric(), b) {
            (a, b) = (a.min(o), Some(a.max(o)));
        }
        (self.kind, a, b, self.reg, self.space)
    }
}

/// What identifies a finding across sightings ([`Finding::key`]): kind, PC, the other
/// side's PC, register, space.
pub type FindingKey = (
    FindingKind,
    u64,
    Option<u64>,
    Option<(RegFile, u8)>,
    Option<Space>,
);

/// Joins the waves `first` and `more` of one side of a sighting to that side of a finding:
/// `site`'s lanes for its own wave, `also` for the others (at most [`FINDING_LIST_MAX`]).
fn join_side(site: &mut Site, also: &mut Vec<WaveLanes>, first: WaveLanes, more: &[WaveLanes]) {
    for x in std::iter::once(first).chain(more.iter().copied()) {
        if x.wave == site.wave {
            site.lanes |= x.lanes;
            continue;
        }
        match also.iter().position(|y| y.wave == x.wave) {
            Some(i) => also[i].lanes |= x.lanes,
            None if also.len() < FINDING_LIST_MAX => also.push(x),
            None => {}
        }
    }
}
