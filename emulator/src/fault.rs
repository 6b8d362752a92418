//! Faults: what went wrong, where (wave, lanes, PC, address).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::memory::Space;

/// What kind of fault.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum FaultKind {
    /// The word at PC is not a legal instruction.
    IllegalInstruction {
        /// Why (the decoder's message).
        reason: String,
    },
    /// writelane with a lane >= 32 (the spec's IllegalInsn trap).
    IllegalLane {
        /// The lane number from the instruction's `ln7` field, 32-127.
        lane: u32,
    },
    /// PC is outside the code or not at an instruction boundary.
    BadPc,
    /// An access not aligned as docs/memory.md requires.
    Misaligned {
        /// The address space of the access.
        space: Space,
        /// Required alignment in bytes.
        align: u32,
    },
    /// An access outside the shared window or the lane's scratch.
    OutOfWindow {
        /// Shared or scratch: the window the address fell outside of.
        space: Space,
        /// Window size in bytes.
        size: u64,
    },
    /// A global access touching unallocated memory.
    Unmapped,
    /// `trap imm`.
    Trap {
        /// The `u14` immediate of the `trap` instruction, 0-16383.
        code: u32,
    },
    /// `brk` outside the debugger.
    Break,
    /// The instruction budget ran out (an endless loop, or a budget set too low).
    BudgetExhausted {
        /// The budget in wave-instructions (all waves together) that was reached.
        limit: u64,
    },
}

/// A fault with its context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fault {
    /// The fault's class and its class-specific details.
    pub kind: FaultKind,
    /// The faulting wave's global id (`workgroup * waves_per_workgroup + index`).
    pub wave: u32,
    /// The faulting wave's workgroup, from 0.
    pub workgroup: u32,
    /// Lanes involved (bit mask; 0 when not lane-specific).
    pub lanes: u32,
    /// PC of the faulting instruction.
    pub pc: u64,
    /// The address involved, if any (for scratch: the lane's offset).
    pub addr: Option<u64>,
    /// Access size in bytes, for memory faults.
    pub len: u32,
    /// The instruction's text, when it decoded.
    pub instr: Option<String>,
}

impl Fault {
    /// A short name for the fault class, and the POSIX signal a debugger would report.
    pub fn signal(&self) -> (&'static str, u8) {
        match self.kind {
            FaultKind::IllegalInstruction { .. }
            | FaultKind::IllegalLane { .. }
            | FaultKind::BadPc => ("SIGILL", 4),
            FaultKind::Misaligned { .. } => ("SIGBUS", 7),
            FaultKind::OutOfWindow { .. } | FaultKind::Unmapped => ("SIGSEGV", 11),
            FaultKind::Trap { .. } | FaultKind::Break => ("SIGTRAP", 5),
            FaultKind::BudgetExhausted { .. } => ("SIGXCPU", 24),
        }
    }
}

/// Lanes of a mask as ranges: `3`, `0-7, 9, 30-31`.
pub fn lanes_text(mask: u32) -> String {
    let lanes: Vec<u64> = (0..32).filter(|l| mask >> l & 1 == 1).collect();
    ranges_text(&lanes)
}

/// Numbers as ranges, sorted and without repeats: `1-3, 5, 7-8` (consecutive numbers as
/// a range), as [`lanes_text`] lists lanes and the sanitizer's reports list waves.
pub fn ranges_text(values: &[u64]) -> String {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i;
        while j + 1 < sorted.len() && sorted[j + 1] == sorted[j].saturating_add(1) {
            j += 1;
        }
        parts.push(if j > i {
            format!("{}-{}", sorted[i], sorted[j])
        } else {
            sorted[i].to_string()
        });
        i = j + 1;
    }
    parts.join(", ")
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            FaultKind::IllegalInstruction { reason } => write!(f, "illegal instruction: {reason}")?,
            FaultKind::IllegalLane { lane } => write!(
                f,
                "illegal instruction: writelane to lane {lane} (lanes are 0-31)"
            )?,
            FaultKind::BadPc => write!(f, "PC is outside the code or inside an instruction")?,
            FaultKind::Misaligned { space, align } => write!(
                f,
                "misaligned {} access of {} bytes (needs {align}-byte alignment)",
                space.name(),
                self.len
            )?,
            FaultKind::OutOfWindow { space, size } => write!(
                f,
                "{} access of {} bytes outside the {size}-byte {} window",
                space.name(),
                self.len,
                space.name()
            )?,
            FaultKind::Unmapped => write!(
                f,
                "global access of {} bytes to unallocated memory",
                self.len
            )?,
            FaultKind::Trap { code } => write!(f, "trap {code}")?,
            FaultKind::Break => write!(f, "break instruction (brk) outside the debugger")?,
            FaultKind::BudgetExhausted { limit } => {
                write!(f, "instruction budget of {limit} exhausted (endless loop?)")?
            }
        }
        write!(
            f,
            " [wave {} (workgroup {}), pc {:#06x}",
            self.wave, self.workgroup, self.pc
        )?;
        if let Some(a) = self.addr {
            write!(f, ", address {a:#x}")?;
        }
        if self.lanes != 0 {
            write!(
                f,
                ", lane{} {}",
                if self.lanes.count_ones() == 1 {
                    ""
                } else {
                    "s"
                },
                lanes_text(self.lanes)
            )?;
        }
        if let Some(i) = &self.instr {
            write!(f, ", `{i}`")?;
        }
        write!(f, "]")
    }
}

#[cfg(test)]
mod tests {
    use super::{lanes_text, ranges_text};

    #[test]
    fn numbers_are_listed_as_ranges() {
        assert_eq!(lanes_text(0xc000_02ff), "0-7, 9, 30-31");
        assert_eq!(lanes_text(0), "");
        assert_eq!(lanes_text(u32::MAX), "0-31");
        assert_eq!(ranges_text(&[]), "");
        assert_eq!(ranges_text(&[3]), "3");
        assert_eq!(ranges_text(&[2, 1]), "1-2");
        assert_eq!(ranges_text(&[5, 1, 2, 3, 7, 8, 9, 9]), "1-3, 5, 7-9");
        assert_eq!(ranges_text(&[1, 3]), "1, 3");
        assert_eq!(
            ranges_text(&[u64::MAX, u64::MAX - 1]),
            format!("{}-{}", u64::MAX - 1, u64::MAX)
        );
    }
}
