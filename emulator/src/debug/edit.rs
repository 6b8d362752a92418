//! Changing the stopped machine: registers and memory, as `set` in the command language
//! and the GDB server's register and memory writes do. Front ends change state only
//! through these methods, never through the machine's fields.

use super::{Engine, EngineError};
use crate::isa::RegFile;
use crate::machine::Machine;
use crate::memory::Space;
use crate::wave::{LANES, UREGS, VREGS};

/// A register write of one wave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegisterWrite {
    /// `vN` in one lane.
    VLane {
        /// Vector register number, 0-127.
        reg: u8,
        /// Lane, 0-31; the write is made whether the lane is active or not.
        lane: u8,
        /// The lane's new 32-bit value.
        value: u32,
    },
    /// `vN` in every lane, active or not.
    V {
        /// Vector register number, 0-127.
        reg: u8,
        /// New value of each lane.
        lanes: [u32; LANES],
    },
    /// `uN`.
    U {
        /// Uniform register number, 0-63.
        reg: u8,
        /// The register's new 32-bit value.
        value: u32,
    },
    /// The EXEC mask.
    Exec(u32),
    /// The program counter (a multiple of 4).
    Pc(u64),
}

impl RegisterWrite {
    /// Writes the register of wave `wave` of `m`.
    pub(crate) fn apply(self, m: &mut Machine, wave: usize) -> Result<(), EngineError> {
        let written = match self {
            RegisterWrite::VLane { reg, lane, .. } => Some((
                RegFile::Vector,
                reg,
                1u32.checked_shl(lane as u32).unwrap_or(0),
            )),
            RegisterWrite::V { reg, .. } => Some((RegFile::Vector, reg, u32::MAX)),
            RegisterWrite::U { reg, .. } => Some((RegFile::Uniform, reg, u32::MAX)),
            RegisterWrite::Exec(_) | RegisterWrite::Pc(_) => None,
        };
        self.apply_to(m, wave)?;
        if let (Some((file, reg, lanes)), Some(san), Some(w)) =
            (written, m.sanitizer.as_deref_mut(), m.waves.get(wave))
        {
            // What the debugger writes counts as written, for uninitialised reads.
            san.note_register_write(wave, w, file, reg, lanes);
        }
        Ok(())
    }

    fn apply_to(self, m: &mut Machine, wave: usize) -> Result<(), EngineError> {
        let w = m
            .waves
            .get_mut(wave)
            .ok_or(EngineError::NoWaveIndex(wave))?;
        let vreg = |reg: u8| {
            if (reg as usize) < VREGS {
                Ok(reg as usize)
            } else {
                Err(EngineError::NoRegister(format!("v{reg}")))
            }
        };
        match self {
            RegisterWrite::VLane { reg, lane, value } => {
                if lane as usize >= LANES {
                    return Err(EngineError::LaneOutOfRange(lane as u64));
                }
                w.v[vreg(reg)?][lane as usize] = value;
            }
            RegisterWrite::V { reg, lanes } => w.v[vreg(reg)?] = lanes,
            RegisterWrite::U { reg, value } => {
                if reg as usize >= UREGS {
                    return Err(EngineError::NoRegister(format!("u{reg}")));
                }
                w.u[reg as usize] = value;
            }
            RegisterWrite::Exec(mask) => w.exec = mask,
            RegisterWrite::Pc(pc) => {
                if pc % 4 != 0 {
                    return Err(EngineError::PcMisaligned(pc));
                }
                w.pc = pc;
            }
        }
        Ok(())
    }
}

impl Engine {
    /// Writes a register of wave `wave` (an index into the machine's waves).
    pub fn write_register(&mut self, wave: usize, write: RegisterWrite) -> Result<(), EngineError> {
        write.apply(&mut self.machine, wave)?;
        self.edited = true;
        self.record_register(wave, write);
        Ok(())
    }

    /// Writes memory as [`crate::machine::Machine::read_space`] reads it: a global address,
    /// the shared window of wave `wave`'s workgroup, or lane `lane`'s scratch.
    pub fn write_memory(
        &mut self,
        space: Space,
        wave: usize,
        lane: u8,
        addr: u64,
        data: &[u8],
    ) -> Result<(), EngineError> {
        self.machine.write_space(space, wave, lane, addr, data)?;
        self.record_memory(space, wave, lane, addr, data);
        Ok(())
    }
}
