//! A decoded instruction, and the table-driven encoder and decoder.

use std::fmt;

use super::operand::{write_cpol, write_reg};
use super::{field_of, ImmKind, InstrDef, InstrId, Isa, OperandDef, OperandKind, Slot};

/// One decoded instruction: which definition, and the value of each operand slot.
///
/// Slots the instruction does not use are zero. `imm` holds the immediate as written in
/// assembly (sign-extended for signed kinds; for `rel14`, the count of 4-byte words).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Instr {
    /// Definition index in [`Isa::defs`].
    pub id: InstrId,
    /// `rd` field: a register number (destination, or store and atomic data).
    pub rd: u8,
    /// `rs1` field (a register, or a lane for `ln7`).
    pub rs1: u8,
    /// `rs2` field: a register number (in memory formats the uniform base or descriptor).
    pub rs2: u8,
    /// `rs3` field: a register number (the V3 format's third source).
    pub rs3: u8,
    /// The immediate as written in assembly: sign-extended for signed kinds, a count of 4-byte
    /// words for `rel14`; 0 when the instruction has none.
    pub imm: i64,
    /// Cache-policy bits, 0-7: bit 0 `glc`, bit 1 `slc`, bit 2 `nt`
    /// ([`CPOL_NAMES`](super::operand::CPOL_NAMES)).
    pub cpol: u8,
}

/// Why a word is not a legal instruction.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// No instruction has this opcode and function-field combination.
    #[error("illegal instruction word {word:#010x}: no instruction has opcode {opcode:#04x} with these function fields")]
    Unknown {
        /// The instruction's first (low) 32-bit word.
        word: u32,
        /// Its opcode, bits 6:0 of the word.
        opcode: u8,
    },
    /// A 64-bit instruction whose second word is missing.
    #[error("truncated 64-bit instruction: second word missing")]
    Truncated,
    /// Reserved or unused bits are set.
    #[error("illegal {mnemonic}: reserved bits {bits:#x} are set")]
    Reserved {
        /// The instruction identified by opcode and function fields.
        mnemonic: &'static str,
        /// The set bits that must be zero (a mask over the 64-bit instruction, low word first).
        bits: u64,
    },
    /// An operand is out of range (a register tuple past the file's end, a count too large).
    #[error("illegal {mnemonic}: operand {operand} value {value} out of range")]
    Operand {
        /// The instruction identified by opcode and function fields.
        mnemonic: &'static str,
        /// The operand's syntax token, e.g. `rs1:vp^2`.
        operand: &'static str,
        /// The field's decoded value (a register number; sign-extended for signed immediates).
        value: i64,
    },
}

/// Why an instruction cannot be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{mnemonic}: operand {operand} value {value} out of range ({expected})")]
pub struct EncodeError {
    /// The mnemonic being encoded.
    pub mnemonic: &'static str,
    /// The operand's syntax token, e.g. `imm:s24`.
    pub operand: &'static str,
    /// The value given, as it would be written in assembly.
    pub value: i64,
    /// What the assembler accepts ([`OperandKind::expected`]), e.g. `a vector register`.
    pub expected: String,
}

impl Instr {
    /// An instruction of definition `id` with every operand zero.
    pub fn new(id: InstrId) -> Self {
        Self {
            id,
            rd: 0,
            rs1: 0,
            rs2: 0,
            rs3: 0,
            imm: 0,
            cpol: 0,
        }
    }

    /// The instruction's definition.
    pub fn def(&self) -> &'static InstrDef {
        Isa::get().def(self.id)
    }

    /// Length in bytes (4 or 8).
    pub fn size_bytes(&self) -> u32 {
        self.def().len as u32
    }

    /// The value of an operand slot.
    pub fn get(&self, slot: Slot) -> i64 {
        match slot {
            Slot::Rd => self.rd as i64,
            Slot::Rs1 => self.rs1 as i64,
            Slot::Rs2 => self.rs2 as i64,
            Slot::Rs3 => self.rs3 as i64,
            Slot::Imm => self.imm,
            Slot::Cpol => self.cpol as i64,
        }
    }

    /// Sets an operand slot (the value is range-checked by [`Instr::encode`]).
    pub fn set(&mut self, slot: Slot, value: i64) {
        match slot {
            Slot::Rd => self.rd = value as u8,
            Slot::Rs1 => self.rs1 = value as u8,
            Slot::Rs2 => self.rs2 = value as u8,
            Slot::Rs3 => self.rs3 = value as u8,
            Slot::Imm => self.imm = value,
            Slot::Cpol => self.cpol = value as u8,
        }
    }

    /// Decodes the instruction starting at `words[0]` (a 64-bit instruction uses two words,
    /// low word first). Never panics: every undefined word is an error value.
    pub fn decode(words: &[u32]) -> Result<Instr, DecodeError> {
        let Some(&low) = words.first() else {
            return Err(DecodeError::Truncated);
        };
        let long = low & 1 == 1;
        let high = if long {
            *words.get(1).ok_or(DecodeError::Truncated)?
        } else {
            0
        };
        let isa = Isa::get();
        let id = isa.identify(low, high).ok_or(DecodeError::Unknown {
            word: low,
            opcode: (low & 0x7f) as u8,
        })?;
        let def = isa.def(id);
        let word = low as u64 | (high as u64) << 32;
        let stray = (word ^ def.fixed_bits) & def.fixed_mask;
        if stray != 0 {
            return Err(DecodeError::Reserved {
                mnemonic: def.mnemonic(),
                bits: stray,
            });
        }
        let mut instr = Instr::new(id);
        for op in &def.operands {
            let Some(field) = field_of(def.format, op.slot) else {
                continue;
            };
            let raw = field.get(word);
            let value = match op.kind {
                OperandKind::Imm(k) if k.signed() => sign_extend(raw, field.width),
                _ => raw as i64,
            };
            if check_operand(op, value).is_err() {
                return Err(DecodeError::Operand {
                    mnemonic: def.mnemonic(),
                    operand: op.token,
                    value,
                });
            }
            instr.set(op.slot, value);
        }
        Ok(instr)
    }

    /// Encodes the instruction: returns the (up to 64-bit) word and its length in bytes.
    pub fn encode(&self) -> Result<(u64, u32), EncodeError> {
        let def = self.def();
        let mut word = def.fixed_bits;
        for op in &def.operands {
            let value = self.get(op.slot);
            check_operand(op, value).map_err(|expected| EncodeError {
                mnemonic: def.mnemonic(),
                operand: op.token,
                value,
                expected,
            })?;
            if let Some(field) = field_of(def.format, op.slot) {
                word |= ((value as u64) & ((1u64 << field.width) - 1)) << field.lo;
            }
        }
        Ok((word, def.len as u32))
    }

    /// Encodes into 32-bit words (one or two), low word first.
    pub fn encode_words(&self) -> Result<Vec<u32>, EncodeError> {
        let (word, len) = self.encode()?;
        Ok(if len == 8 {
            vec![word as u32, (word >> 32) as u32]
        } else {
            vec![word as u32]
        })
    }

    /// The branch target of a `rel14` operand, given this instruction's address.
    pub fn branch_target(&self, pc: u64) -> Option<u64> {
        self.def()
            .operands
            .iter()
            .any(|o| o.kind == OperandKind::Imm(ImmKind::Rel14))
            .then(|| pc.wrapping_add((self.imm * 4) as u64))
    }

    /// Writes the instruction as assembly text. `label` names addresses for branch targets;
    /// without a name a target is written relative to this instruction (`.+8`).
    pub fn write(
        &self,
        out: &mut impl fmt::Write,
        pc: u64,
        label: &dyn Fn(u64) -> Option<String>,
    ) -> fmt::Result {
        let def = self.def();
        out.write_str(def.mnemonic())?;
        let mut first = true;
        for op in &def.operands {
            let value = self.get(op.slot);
            if op.kind == OperandKind::Cpol && value == 0 {
                continue;
            }
            out.write_str(if first { " " } else { ", " })?;
            first = false;
            match op.kind {
                OperandKind::Reg { file, count } => write_reg(out, file, value as u32, count)?,
                OperandKind::Cpol => write_cpol(out, value as u32)?,
                OperandKind::Imm(ImmKind::Rel14) => {
                    let target = pc.wrapping_add((value * 4) as u64);
                    match label(target) {
                        Some(name) => out.write_str(&name)?,
                        None if value >= 0 => write!(out, ".+{}", value * 4)?,
                        None => write!(out, ".-{}", -value * 4)?,
                    }
                }
                // A 32-bit immediate of arithmetic reads as the signed number it is written
                // as (`uaddi u6, u6, -1`); bit patterns (and, or, xor, shifts, unsigned
                // compares, floats) and large values read as hex.
                OperandKind::Imm(ImmKind::B32) if b32_signed(def.op(), value) => {
                    write!(out, "{}", value as u32 as i32)?
                }
                OperandKind::Imm(ImmKind::B32) if value > 0xffff => write!(out, "{value:#x}")?,
                OperandKind::Imm(_) => write!(out, "{value}")?,
            }
        }
        Ok(())
    }

    /// The instruction as text, branch targets relative (`.+8`).
    pub fn text(&self, pc: u64) -> String {
        let mut s = String::new();
        // Writing to a String cannot fail.
        let _ = self.write(&mut s, pc, &|_| None);
        s
    }
}

impl fmt::Display for Instr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, 0, &|_| None)
    }
}

/// Whether a `b32` immediate of an instruction performing `op` is written as a negative
/// decimal: integer add, multiply, move and signed or equality compares, when the value
/// read as an i32 is negative and small (-65536 to -1).
fn b32_signed(op: crate::isa::Op, value: i64) -> bool {
    use crate::isa::op::{AluOp, CmpOp};
    let signed = value as u32 as i32;
    if !(-0x1_0000..0).contains(&signed) {
        return false;
    }
    match op {
        crate::isa::Op::UAlu(a, _) | crate::isa::Op::VAlu(a, _) => {
            matches!(
                a,
                AluOp::Add | AluOp::Sub | AluOp::Mul | AluOp::Mov | AluOp::MinI | AluOp::MaxI
            )
        }
        crate::isa::Op::UCmp(c, _) => matches!(c, CmpOp::Eq | CmpOp::Ne | CmpOp::LtI | CmpOp::GeI),
        crate::isa::Op::UAdd64(_) | crate::isa::Op::VAdd64(_) => true,
        _ => false,
    }
}

fn sign_extend(raw: u64, width: u8) -> i64 {
    let shift = 64 - width as u32;
    ((raw << shift) as i64) >> shift
}

/// Checks an operand value against its kind; the error says what was expected.
pub(crate) fn check_operand(op: &OperandDef, value: i64) -> Result<(), String> {
    let ok = match op.kind {
        OperandKind::Reg { file, count } => {
            value >= 0 && value + count as i64 <= file.count() as i64
        }
        OperandKind::Imm(k) => {
            let (lo, hi) = k.range();
            (lo..=hi).contains(&value)
        }
        OperandKind::Cpol => (0..8).contains(&value),
    };
    if ok {
        Ok(())
    } else {
        Err(op.expected())
    }
}
