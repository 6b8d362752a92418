//! What one instruction did to memory, lane by lane: the record the semantics fill in
//! and the sanitizer reads. Below both, so neither imports the other.

use crate::memory::Space;

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

/// The memory accesses of one instruction (filled by the semantics when a sanitizer is
/// on; one instruction accesses one space, one way, one size).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemTrace {
    /// The space and how it was accessed (`None`: no memory access yet).
    pub access: Option<(Space, AccessKind)>,
    /// Bytes each entry accesses (the same for every entry of one instruction).
    pub len: u32,
    /// One entry per accessing lane (or per dword of a uniform buffer load).
    pub entries: Vec<TraceEntry>,
    /// For stores, the bytes each entry writes (little-endian), in entry order.
    pub data: Vec<u128>,
}

impl MemTrace {
    /// Starts an instruction's trace: accesses of `len` bytes each to `space`, as `kind`
    /// (the previous entries and data dropped).
    pub fn begin(&mut self, space: Space, kind: AccessKind, len: u32) {
        self.access = Some((space, kind));
        self.len = len;
        self.entries.clear();
        self.data.clear();
    }

    /// A uniform load's read of `addr` (one entry, lane 0).
    pub fn push_uniform(&mut self, addr: u64) {
        self.entries.push(TraceEntry {
            lane: 0,
            addr,
            off: addr,
        });
    }

    /// Forgets the previous instruction's accesses (keeping the buffers' capacity).
    pub(crate) fn clear(&mut self) {
        self.access = None;
        self.entries.clear();
        self.data.clear();
    }
}
