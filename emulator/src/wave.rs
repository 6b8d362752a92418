//! One wave: 32 lanes executing in lock-step under an EXEC mask.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::isa::{Counter, RegFile};
use crate::memory::PagedBytes;

/// Lanes per wave, 32: lane `l` is bit `l` of EXEC and of every lane mask.
pub const LANES: usize = 32;
/// Vector registers per wave.
pub const VREGS: usize = 128;
/// Uniform registers per wave.
pub const UREGS: usize = 64;
/// The async counters saturate here (6 bits): issuing one more retires the oldest.
pub const COUNTER_MAX: usize = 63;

/// A wave's scheduling state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WaveState {
    /// Can issue its next instruction when the scheduler picks it.
    Ready,
    /// Waiting at a workgroup barrier.
    AtBarrier,
    /// Held by the debugger (not scheduled until released).
    Stopped,
    /// Finished (`end`).
    Exited,
    /// Stopped by a fault.
    Faulted,
}

impl WaveState {
    /// The state's name.
    pub const fn name(self) -> &'static str {
        match self {
            WaveState::Ready => "ready",
            WaveState::AtBarrier => "at barrier",
            WaveState::Stopped => "stopped",
            WaveState::Exited => "exited",
            WaveState::Faulted => "faulted",
        }
    }
}

/// Registers an async operation will write when it completes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RegRange {
    /// Which register file, vector or uniform.
    pub file: RegFile,
    /// The first register's number (v0-v127 or u0-u63).
    pub first: u8,
    /// Consecutive registers from `first`, 1 to 16.
    pub count: u8,
}

/// An issued async operation not yet retired by a wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outstanding {
    /// PC of the issuing instruction.
    pub pc: u64,
    /// Destination registers, if it returns data.
    pub regs: Option<RegRange>,
    /// EXEC when it issued: the lanes it accesses (the sanitizer names them).
    pub exec: u32,
}

/// A wave's 128 vector registers, register-major (`v[reg][lane]`). Storage is allocated
/// up to the highest register written; the rest read as zero, as at launch. A kernel
/// using v0-v15 costs 2 KiB per wave instead of 16 KiB, which is what lets a launch of
/// 1,024 resident waves (and the debugger's snapshot of it) stay small.
#[derive(Debug, Clone, Default)]
pub struct VRegs {
    regs: Vec<[u32; LANES]>,
}

static ZERO_REG: [u32; LANES] = [0; LANES];

impl VRegs {
    /// Always [`VREGS`]: every register exists, allocated or not.
    pub fn len(&self) -> usize {
        VREGS
    }

    /// Never empty (see [`VRegs::len`]).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Every register in order.
    pub fn iter(&self) -> impl Iterator<Item = &[u32; LANES]> {
        (0..VREGS).map(move |r| &self[r])
    }

    /// Registers with storage (the rest are zero).
    pub fn allocated(&self) -> usize {
        self.regs.len()
    }

    /// The registers with storage, after giving storage to the first `n` (at most
    /// [`VREGS`]; values are unchanged, a register given storage here reads zero), so a
    /// loop over known register numbers indexes a plain slice.
    pub fn storage_for(&mut self, n: usize) -> &mut [[u32; LANES]] {
        let n = n.min(VREGS);
        if self.regs.len() < n {
            self.regs.resize(n, [0; LANES]);
        }
        &mut self.regs
    }
}

impl std::ops::Index<usize> for VRegs {
    type Output = [u32; LANES];

    #[inline]
    fn index(&self, r: usize) -> &[u32; LANES] {
        match self.regs.get(r) {
            Some(v) => v,
            None if r < VREGS => &ZERO_REG,
            None => panic!("vector register v{r} does not exist (v0-v{})", VREGS - 1),
        }
    }
}

impl std::ops::IndexMut<usize> for VRegs {
    #[inline]
    fn index_mut(&mut self, r: usize) -> &mut [u32; LANES] {
        if r >= self.regs.len() {
            assert!(
                r < VREGS,
                "vector register v{r} does not exist (v0-v{})",
                VREGS - 1
            );
            self.regs.resize(r + 1, [0; LANES]);
        }
        &mut self.regs[r]
    }
}

impl PartialEq for VRegs {
    /// Register values, however much storage each side has.
    fn eq(&self, other: &VRegs) -> bool {
        (0..VREGS).all(|r| self[r] == other[r])
    }
}

/// One wave's architectural state.
#[derive(Debug, Clone, PartialEq)]
pub struct Wave {
    /// Global wave id (`workgroup * waves_per_workgroup + index`).
    pub id: u32,
    /// The workgroup it belongs to, from 0 (< the grid size).
    pub workgroup: u32,
    /// Index within the workgroup, 0 to waves per workgroup - 1.
    pub index: u32,
    /// Program counter (byte address in the code).
    pub pc: u64,
    /// Active-lane mask: bit `l` set = lane `l` executes (all 32 set at launch).
    pub exec: u32,
    /// Vector registers, register-major: `v[reg][lane]`.
    pub v: VRegs,
    /// Uniform registers u0-u63: one 32-bit value shared by all lanes.
    pub u: [u32; UREGS],
    /// Whether the scheduler may run it, and why not.
    pub state: WaveState,
    /// Issued, unretired async operations per counter (index [`Counter::index`]).
    pub outstanding: [VecDeque<Outstanding>; 4],
    /// Private scratch of all 32 lanes (lane `l` at `l * scratch_bytes`).
    pub scratch: PagedBytes,
    /// Instructions this wave has executed.
    pub executed: u64,
}

/// Retires the oldest operations of one counter's queue until it holds at most `n` (what
/// a `wait.*` does; the fast loop calls it on the queue directly).
#[inline]
pub fn retire(q: &mut VecDeque<Outstanding>, n: u32) {
    while q.len() > n as usize {
        q.pop_front();
    }
}

/// Adds an issued operation to one counter's queue, dropping the oldest when the counter
/// is at its maximum ([`pushed_out`]: what issuing a memory operation does; the fast
/// loop calls it on the queue directly).
#[inline]
pub fn issue_to(q: &mut VecDeque<Outstanding>, o: Outstanding) {
    if pushed_out(q).is_some() {
        q.pop_front();
    }
    q.push_back(o);
}

/// The operation that issuing one more to the counter's queue `q` drops: its oldest, when
/// the counter is at its maximum.
#[inline]
pub fn pushed_out(q: &VecDeque<Outstanding>) -> Option<&Outstanding> {
    q.front().filter(|_| q.len() >= COUNTER_MAX)
}

impl Wave {
    /// A fresh wave at PC 0 with all lanes active.
    pub fn new(id: u32, workgroup: u32, index: u32, scratch_bytes: u32) -> Self {
        Self {
            id,
            workgroup,
            index,
            pc: 0,
            exec: u32::MAX,
            v: VRegs::default(),
            u: [0; UREGS],
            state: WaveState::Ready,
            outstanding: Default::default(),
            scratch: PagedBytes::zeroed(scratch_bytes as u64 * LANES as u64),
            executed: 0,
        }
    }

    /// The value of an async counter.
    pub fn counter(&self, c: Counter) -> u32 {
        self.outstanding[c.index()].len() as u32
    }

    /// Records an issued async operation (with the lanes of EXEC now).
    pub fn issue(&mut self, c: Counter, pc: u64, regs: Option<RegRange>) {
        let o = Outstanding {
            pc,
            regs,
            exec: self.exec,
        };
        issue_to(&mut self.outstanding[c.index()], o);
    }

    /// Retires the oldest operations until the counter is at most `n`.
    pub fn wait(&mut self, c: Counter, n: u32) {
        retire(&mut self.outstanding[c.index()], n);
    }

    /// The outstanding operation that will write register `reg` of `file`, if any.
    pub fn pending_write(&self, file: RegFile, reg: u8) -> Option<(Counter, Outstanding)> {
        self.pending_write_but(file, reg, None)
    }

    /// [`Wave::pending_write`], leaving out the operations of counter `but` (if any).
    pub fn pending_write_but(
        &self,
        file: RegFile,
        reg: u8,
        but: Option<Counter>,
    ) -> Option<(Counter, Outstanding)> {
        Counter::ALL
            .iter()
            .filter(|&&c| Some(c) != but)
            .find_map(|c| {
                self.outstanding[c.index()]
                    .iter()
                    .rev()
                    .find(|o| {
                        o.regs.is_some_and(|r| {
                            r.file == file
                                && (r.first..r.first.saturating_add(r.count)).contains(&reg)
                        })
                    })
                    .map(|o| (*c, *o))
            })
    }

    /// Makes `self` equal to `other`, which it was a copy of before some execution: a
    /// wave that has not executed since (same id, same instruction count) only had its
    /// scheduling state changed, so its registers and scratch are not copied. Debugger
    /// edits break that rule; after one, clone instead.
    pub fn sync_from(&mut self, other: &Wave) {
        let Wave {
            id,
            workgroup,
            index,
            pc,
            exec,
            v,
            u,
            state,
            outstanding,
            scratch,
            executed,
        } = other;
        let ran = self.id != *id || self.executed != *executed;
        self.id = *id;
        self.workgroup = *workgroup;
        self.index = *index;
        self.pc = *pc;
        self.exec = *exec;
        self.state = *state;
        self.executed = *executed;
        if ran {
            self.v.clone_from(v);
            self.u = *u;
            self.outstanding.clone_from(outstanding);
            self.scratch.sync_from(scratch);
        }
    }

    /// Whether the wave can still run (not exited or faulted).
    pub fn alive(&self) -> bool {
        !matches!(self.state, WaveState::Exited | WaveState::Faulted)
    }
}

/// The set bits of a lane mask, lowest first.
pub(crate) struct Lanes(pub(crate) u32);

impl Iterator for Lanes {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let l = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(l)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Lanes {}
