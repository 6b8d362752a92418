//! Memory packets (`m`, `M`, `X`): gdbstub calls `read_addrs`/`write_addrs` of
//! `MultiThreadBase` ([`super::base`]), which come here. The address alone names the
//! memory, through the windows of [`crate::memory`], which checks every access; writes go
//! through the engine ([`Engine::write_memory`](wavedbg_emulator::debug::Engine::write_memory)).

use gdbstub::target::{TargetError, TargetResult};

use super::WaveTarget;
use crate::memory;

impl WaveTarget {
    /// Reads up to `data.len()` bytes at a window address: the count read (a short read
    /// ends at the end of the memory there, or is padded for lldb, [`WaveTarget::tail`]).
    pub(super) fn read_memory(&mut self, start: u64, data: &mut [u8]) -> TargetResult<usize, Self> {
        memory::read(self.engine.machine(), start, data, self.tail())
            .map_err(|e| TargetError::Errno(e.errno))
    }

    /// Writes `data` at a window address, whole or not at all.
    pub(super) fn write_memory(&mut self, start: u64, data: &[u8]) -> TargetResult<(), Self> {
        memory::write(&mut self.engine, start, data).map_err(|e| TargetError::Errno(e.errno))
    }
}
