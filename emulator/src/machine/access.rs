//! Memory as the debugger reads and writes it: global addresses, a workgroup's shared
//! window, a lane's scratch.

use super::Machine;
use crate::memory::Space;

/// Why a debugger memory access failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MemoryError {
    /// Some byte of a global access lies outside every allocation.
    #[error("{} is not allocated global memory", range_text(*addr, *end))]
    Unmapped {
        /// Global address of the access's first byte.
        addr: u64,
        /// One past the access's last byte (`addr + len`, saturating).
        end: u64,
    },
    /// Outside the shared window or the lane's scratch.
    #[error("{space} {} is outside the {size}-byte window", range_text(*addr, *end), space = space.name())]
    OutOfWindow {
        /// [`Space::Shared`] or [`Space::Scratch`], never global.
        space: Space,
        /// Offset of the first byte in the window (not a global address).
        addr: u64,
        /// One past the last byte (`addr + len`, saturating); the error means `end > size`.
        end: u64,
        /// Window size in bytes: the workgroup's shared bytes, or the per-lane scratch bytes.
        size: u64,
    },
    /// The wave index (into [`Machine::waves`]) is out of range: no such resident wave.
    #[error("wave {0} is not resident")]
    NoWave(usize),
}

/// `addr..end` as an error shows it; an end that saturated at the top of the 64-bit
/// address space (the access runs past it) says so instead of showing an empty range.
fn range_text(addr: u64, end: u64) -> String {
    if end == u64::MAX {
        format!("{addr:#x}.. (past the end of the 64-bit address space)")
    } else {
        format!("{addr:#x}..{end:#x}")
    }
}

/// Where a checked debugger access lands: the bytes to read or write and the offset in them.
enum Place {
    /// Global memory at this address (checked as allocated).
    Global(u64),
    /// The shared memory of this slot, at this offset.
    Shared(usize, u64),
    /// The scratch of this wave (index), at this offset (the lane's part included).
    Scratch(usize, u64),
}

impl Machine {
    /// Checks an `n`-byte access and says where it lands; reads and writes share it.
    fn place(
        &self,
        space: Space,
        wave: usize,
        lane: u8,
        addr: u64,
        n: u64,
    ) -> Result<Place, MemoryError> {
        if space == Space::Global {
            return if self.global.is_mapped(addr, n) {
                Ok(Place::Global(addr))
            } else {
                Err(MemoryError::Unmapped {
                    addr,
                    end: addr.saturating_add(n),
                })
            };
        }
        if wave >= self.waves.len() {
            return Err(MemoryError::NoWave(wave));
        }
        let size = match space {
            Space::Shared => self.slots[self.slot_of(wave)].shared.len(),
            _ => self.launch.scratch_bytes as u64,
        };
        let end = addr.saturating_add(n);
        if end > size {
            return Err(MemoryError::OutOfWindow {
                space,
                addr,
                end,
                size,
            });
        }
        Ok(if space == Space::Scratch {
            Place::Scratch(wave, lane as u64 % 32 * size + addr)
        } else {
            Place::Shared(self.slot_of(wave), addr)
        })
    }

    /// Reads memory as the debugger sees it: global addresses, the shared window of wave
    /// `wave`'s workgroup, or the scratch of lane `lane` of wave `wave`.
    pub fn read_space(
        &self,
        space: Space,
        wave: usize,
        lane: u8,
        addr: u64,
        out: &mut [u8],
    ) -> Result<(), MemoryError> {
        match self.place(space, wave, lane, addr, out.len() as u64)? {
            // `place` checked the mapping.
            Place::Global(a) => drop(self.global.read(a, out)),
            Place::Shared(slot, off) => self.slots[slot].shared.read(off, out),
            Place::Scratch(w, off) => self.waves[w].scratch.read(off, out),
        }
        Ok(())
    }

    /// Writes memory as [`Machine::read_space`] reads it.
    pub fn write_space(
        &mut self,
        space: Space,
        wave: usize,
        lane: u8,
        addr: u64,
        data: &[u8],
    ) -> Result<(), MemoryError> {
        let place = self.place(space, wave, lane, addr, data.len() as u64)?;
        let wave_slot = self.slot_of(wave);
        if let (Some(san), Some(w)) = (self.sanitizer.as_deref_mut(), self.waves.get(wave)) {
            // What the debugger writes counts as written, for uninitialised reads.
            let (s, off) = match place {
                Place::Shared(slot, off) => (slot, off),
                Place::Scratch(_, off) => (wave_slot, off),
                Place::Global(a) => (wave_slot, a),
            };
            let group = super::run::group_of(&self.waves, s, self.launch.waves_per_workgroup());
            let fresh = || group.iter().all(|x| x.executed == 0);
            san.note_memory_write(space, (s, wave), w, fresh, off, data.len() as u64);
        }
        match place {
            Place::Global(a) => drop(self.global.write(a, data)),
            Place::Shared(slot, off) => self.slots[slot].shared.write(off, data),
            Place::Scratch(w, off) => {
                self.touch(w);
                self.waves[w].scratch.write(off, data);
            }
        }
        Ok(())
    }

    /// The index in [`Machine::waves`] of a resident wave by global id.
    pub fn wave_index(&self, id: u32) -> Option<usize> {
        self.waves.iter().position(|w| w.id == id)
    }

    /// A wave that exited and whose slot the next workgroup took, as it was when it
    /// exited: only the last workgroup dispatched into a used slot is kept.
    pub fn retired_wave(&self, id: u32) -> Option<&crate::wave::Wave> {
        self.retired.as_deref()?.iter().find(|w| w.id == id)
    }
}
