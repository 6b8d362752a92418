//! What one instruction did to memory, lane by lane: the record the semantics fill in
//! and the sanitizer reads. Below both, so neither imports the other.

use crate::memory::Space;
use crate::wave::Lanes;

/// How a lane touched memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AccessKind {
    /// A load: the bytes were only read.
    Read,
    /// A store: the bytes were only written.
    Write,
    /// An atomic read-modify-write: read and written as one access.
    ReadWrite,
}

/// One lane's memory access of the current instruction, as the semantics report it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TraceEntry {
    /// The accessing lane, 0..32 (0 for uniform loads).
    pub lane: u8,
    /// The address as watchpoints name it (global address, shared or scratch offset).
    pub addr: u64,
    /// For scratch, the offset in the wave's scratch (lane part included); else `addr`.
    pub off: u64,
}

/// The accesses of an instruction whose lanes are on consecutive elements: lane `l` of
/// `lanes` accesses the `len` bytes at `addr + len * (l - first)` (`first` the lowest lane
/// of `lanes`), none wrapping. Ascending and disjoint, so its lanes cannot conflict with
/// each other.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TraceRun {
    /// The accessing lanes (not empty); inactive lanes between them keep their places.
    pub lanes: u32,
    /// The lowest lane's address, as [`TraceEntry::addr`].
    pub addr: u64,
    /// The lowest lane's offset, as [`TraceEntry::off`].
    pub off: u64,
}

impl TraceRun {
    /// The lowest accessing lane.
    pub fn first(&self) -> u32 {
        self.lanes.trailing_zeros()
    }
}

/// The memory accesses of one instruction (filled by the semantics when a sanitizer is
/// on; one instruction accesses one space, one way, one size): one entry per lane, or one
/// or two [`TraceRun`]s for lanes on consecutive elements.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemTrace {
    /// The space and how it was accessed (`None`: no memory access yet).
    pub access: Option<(Space, AccessKind)>,
    /// Bytes each entry accesses (the same for every entry of one instruction).
    pub len: u32,
    /// One entry per accessing lane (or per dword of a uniform buffer load); empty when
    /// `run` holds the accesses.
    pub entries: Vec<TraceEntry>,
    /// For stores recorded as `entries`, the bytes each entry writes (little-endian), in
    /// entry order (a run's lanes cannot conflict: its data is not kept).
    pub data: Vec<u128>,
    /// The accesses as one run of consecutive elements, instead of `entries`.
    pub run: Option<TraceRun>,
    /// With `run`, the rest of the lanes as a second run (a window that wraps round, a
    /// rotation): every lane of `run` below every lane of this one, so taking `run` first
    /// is lane order. A store's two runs write disjoint bytes (its lanes cannot conflict);
    /// a load's or an atomic's may meet.
    pub run2: Option<TraceRun>,
}

impl MemTrace {
    /// Starts an instruction's trace: accesses of `len` bytes each to `space`, as `kind`
    /// (the previous entries, data and run dropped).
    pub fn begin(&mut self, space: Space, kind: AccessKind, len: u32) {
        self.clear();
        self.access = Some((space, kind));
        self.len = len;
    }

    /// A uniform load's read of `addr` (one entry, lane 0).
    pub fn push_uniform(&mut self, addr: u64) {
        self.entries.push(TraceEntry {
            lane: 0,
            addr,
            off: addr,
        });
    }

    /// How many accesses the trace holds (entries, or the runs' lanes).
    pub fn count(&self) -> usize {
        match self.run {
            Some(r) => (r.lanes | self.run2.map_or(0, |r| r.lanes)).count_ones() as usize,
            None => self.entries.len(),
        }
    }

    /// Every access, one entry per lane in lane order (runs expanded).
    pub fn accesses(&self) -> impl Iterator<Item = TraceEntry> + '_ {
        let len = self.len as u64;
        // No run: no lanes.
        let lanes = move |run: Option<TraceRun>| {
            let run = run.unwrap_or_default();
            let first = run.first() as u64;
            Lanes(run.lanes).map(move |l| {
                let step = len * (l as u64 - first);
                TraceEntry {
                    lane: l as u8,
                    addr: run.addr + step,
                    off: run.off + step,
                }
            })
        };
        let entries = self.entries.iter().copied();
        entries.chain(lanes(self.run)).chain(lanes(self.run2))
    }

    /// Forgets the previous instruction's accesses (keeping the buffers' capacity).
    pub(crate) fn clear(&mut self) {
        self.access = None;
        self.entries.clear();
        self.data.clear();
        self.run = None;
        self.run2 = None;
    }
}
