//! Operand kinds of the syntax lines (`rd:v`, `rs1:vp^2`, `imm:s24`, ...) and their text.

use std::fmt;

/// Cache-policy bit names, lowest bit first (the `cpol` operand's 3 bits).
pub const CPOL_NAMES: [&str; 3] = ["glc", "slc", "nt"];

/// The register file an operand names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RegFile {
    /// v0-v127: 32 lanes of 32 bits.
    Vector,
    /// u0-u63: one 32-bit value per wave.
    Uniform,
}

impl RegFile {
    /// Number of registers in the file.
    pub const fn count(self) -> u32 {
        match self {
            RegFile::Vector => 128,
            RegFile::Uniform => 64,
        }
    }

    /// Register-name prefix.
    pub const fn prefix(self) -> char {
        match self {
            RegFile::Vector => 'v',
            RegFile::Uniform => 'u',
        }
    }
}

/// An immediate's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImmKind {
    /// Signed 8-bit (`s8`).
    S8,
    /// Unsigned 8-bit (`u8`).
    U8,
    /// Signed 24-bit memory offset (`s24`).
    S24,
    /// A lane number 0-127 held in a 7-bit register field (`ln7`).
    Ln7,
    /// Unsigned 6-bit (`u6`, base group: wait counts).
    U6,
    /// Unsigned 14-bit (`u14`, base group: trap codes).
    U14,
    /// A branch target: signed 14-bit count of 4-byte words relative to the branch (`rel14`).
    Rel14,
    /// Any 32-bit pattern: integer (-2^31..2^32-1) or f32 literal (`b32`, base group).
    B32,
}

impl ImmKind {
    /// Inclusive range of the value written in assembly.
    pub const fn range(self) -> (i64, i64) {
        match self {
            ImmKind::S8 => (-128, 127),
            ImmKind::U8 => (0, 255),
            ImmKind::S24 => (-(1 << 23), (1 << 23) - 1),
            ImmKind::Ln7 => (0, 127),
            ImmKind::U6 => (0, 63),
            ImmKind::U14 => (0, (1 << 14) - 1),
            ImmKind::Rel14 => (-(1 << 13), (1 << 13) - 1),
            ImmKind::B32 => (-(1 << 31), (1 << 32) - 1),
        }
    }

    /// Whether the field is sign-extended when decoded.
    pub const fn signed(self) -> bool {
        matches!(self, ImmKind::S8 | ImmKind::S24 | ImmKind::Rel14)
    }

    /// The spec's name of the kind.
    pub const fn name(self) -> &'static str {
        match self {
            ImmKind::S8 => "s8",
            ImmKind::U8 => "u8",
            ImmKind::S24 => "s24",
            ImmKind::Ln7 => "ln7",
            ImmKind::U6 => "u6",
            ImmKind::U14 => "u14",
            ImmKind::Rel14 => "rel14",
            ImmKind::B32 => "b32",
        }
    }
}

/// What an operand is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OperandKind {
    /// `count` consecutive registers of `file` starting at the encoded one
    /// (`v`, `v^2`, `vp^2`, `u^8`, `up^2`, `d4^4`).
    Reg {
        /// Which file the registers are in.
        file: RegFile,
        /// Number of consecutive registers (1, 2, 3, 4, 8 or 16).
        count: u8,
    },
    /// An immediate in the format's immediate field, of this range and signedness.
    Imm(ImmKind),
    /// The cache-policy bits.
    Cpol,
}

/// Which instruction field an operand occupies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Slot {
    /// Destination (or store/atomic data) register field.
    Rd,
    /// First source field: a register (or an `ln7` lane), often the address.
    Rs1,
    /// Second source field: a register; in memory formats the uniform base or descriptor.
    Rs2,
    /// Third source field (base group V3 format).
    Rs3,
    /// The format's immediate field.
    Imm,
    /// The cache-policy field.
    Cpol,
}

impl Slot {
    /// The operand name used in syntax lines.
    pub const fn name(self) -> &'static str {
        match self {
            Slot::Rd => "rd",
            Slot::Rs1 => "rs1",
            Slot::Rs2 => "rs2",
            Slot::Rs3 => "rs3",
            Slot::Imm => "imm",
            Slot::Cpol => "cpol",
        }
    }
}

/// One operand of a syntax line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OperandDef {
    /// The field it occupies.
    pub slot: Slot,
    /// Register tuple, immediate or cache-policy bits, with its width or range.
    pub kind: OperandKind,
    /// Marked `*` in the spec: the register is written (e.g. `.rtn` atomics, writelane).
    pub written: bool,
    /// The syntax token as the spec writes it, e.g. `rs2:up^2`.
    pub token: &'static str,
}

/// Why a syntax token could not be understood (a table error, caught by tests).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad operand token `{0}`")]
pub struct BadToken(pub String);

impl OperandDef {
    /// Parses a syntax token such as `rd:v^2*` or `imm:s24`.
    pub fn parse(token: &'static str) -> Result<Self, BadToken> {
        let bad = || BadToken(token.to_string());
        let (name, kind) = token.split_once(':').ok_or_else(bad)?;
        let (kind, written) = match kind.strip_suffix('*') {
            Some(k) => (k, true),
            None => (kind, false),
        };
        let slot = match name {
            "rd" => Slot::Rd,
            "rs1" => Slot::Rs1,
            "rs2" => Slot::Rs2,
            "rs3" => Slot::Rs3,
            "imm" => Slot::Imm,
            "cpol" => Slot::Cpol,
            _ => return Err(bad()),
        };
        let (base, count) = match kind.split_once('^') {
            Some((b, n)) => (b, n.parse::<u8>().map_err(|_| bad())?),
            None => (kind, 1),
        };
        let kind = match base {
            "v" | "vp" => OperandKind::Reg {
                file: RegFile::Vector,
                count,
            },
            "u" | "up" | "d4" => OperandKind::Reg {
                file: RegFile::Uniform,
                count,
            },
            "cpol" => OperandKind::Cpol,
            "s8" => OperandKind::Imm(ImmKind::S8),
            "u8" => OperandKind::Imm(ImmKind::U8),
            "s24" => OperandKind::Imm(ImmKind::S24),
            "ln7" => OperandKind::Imm(ImmKind::Ln7),
            "u6" => OperandKind::Imm(ImmKind::U6),
            "u14" => OperandKind::Imm(ImmKind::U14),
            "rel14" => OperandKind::Imm(ImmKind::Rel14),
            "b32" => OperandKind::Imm(ImmKind::B32),
            _ => return Err(bad()),
        };
        if !matches!(count, 1 | 2 | 3 | 4 | 8 | 16) {
            return Err(bad());
        }
        Ok(Self {
            slot,
            kind,
            written,
            token,
        })
    }

    /// A short description of what the assembler expects here (for hints).
    pub fn expected(&self) -> String {
        self.kind.expected()
    }
}

impl OperandKind {
    /// A short description of what the assembler expects for this kind.
    pub fn expected(&self) -> String {
        match *self {
            OperandKind::Reg { file, count: 1 } => format!("a {} register", file_name(file)),
            OperandKind::Reg { file, count } => format!(
                "{count} consecutive {} registers, e.g. {p}[4:{}]",
                file_name(file),
                3 + count as u32,
                p = file.prefix()
            ),
            OperandKind::Imm(k) => {
                let (lo, hi) = k.range();
                match k {
                    ImmKind::Rel14 => "a label".to_string(),
                    ImmKind::B32 => "a 32-bit integer or float".to_string(),
                    _ => format!("an immediate {} in {lo}..={hi}", k.name()),
                }
            }
            OperandKind::Cpol => format!("cache-policy names ({})", CPOL_NAMES.join(" ")),
        }
    }
}

fn file_name(file: RegFile) -> &'static str {
    match file {
        RegFile::Vector => "vector",
        RegFile::Uniform => "uniform",
    }
}

/// Writes register text: `v5`, or `v[4:7]` for a tuple.
pub fn write_reg(out: &mut impl fmt::Write, file: RegFile, first: u32, count: u8) -> fmt::Result {
    let p = file.prefix();
    if count == 1 {
        write!(out, "{p}{first}")
    } else {
        write!(out, "{p}[{first}:{}]", first + count as u32 - 1)
    }
}

/// Writes cache-policy text: names joined by spaces (`glc slc`); empty for 0.
pub fn write_cpol(out: &mut impl fmt::Write, cpol: u32) -> fmt::Result {
    let mut first = true;
    for (bit, name) in CPOL_NAMES.iter().enumerate() {
        if cpol & (1 << bit) != 0 {
            if !first {
                out.write_char(' ')?;
            }
            out.write_str(name)?;
            first = false;
        }
    }
    Ok(())
}
