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
    let mut parts = Vec::new();
    let mut l = 0;
    while l < 32 {
        if mask >> l & 1 == 1 {
            let start = l;
            while l + 1 < 32 && mask >> (l + 1) & 1 == 1 {
                l += 1;
            }
            parts.push(if start == l {
                start.to_string()
            } else {
                format!("{start}-{l}")
            });
        }
        l += 1;
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
