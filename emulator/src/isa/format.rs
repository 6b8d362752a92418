//! Instruction formats: the bit position of every field, as data.
//!
//! The spec names the formats and their fields but not the bit positions; the positions
//! below are the project's decision, documented in docs/isa.md. Every format starts with
//! the 7-bit opcode in bits `[6:0]`; opcode bit 0 is the length bit (0: one 32-bit word,
//! 1: a 64-bit instruction of two words, low word first). Bits not covered by a field are
//! reserved and must be zero.

/// A field of an instruction word: `width` bits starting at bit `lo`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldDef {
    /// Field name: `op`, `rd`, `rs1`, `rs2`, `rs3`, function fields (`f2`..`f11`, `sp`),
    /// `cpol`, or an immediate (`imm8`, `imm14`, `imm24`, `imm32`).
    pub name: &'static str,
    /// Bit position of the field's least significant bit, 0-63 (32-63: the second word).
    pub lo: u8,
    /// Width in bits, at least 1; `lo + width` never exceeds the format's `bits`.
    pub width: u8,
}

impl FieldDef {
    /// The mask of this field within the instruction.
    pub const fn mask(&self) -> u64 {
        (((1u128 << self.width) - 1) as u64) << self.lo
    }

    /// Extracts the field's value from an instruction.
    pub const fn get(&self, word: u64) -> u64 {
        (word >> self.lo) & (((1u128 << self.width) - 1) as u64)
    }
}

/// An instruction format: its length and where each field sits (see docs/isa.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FormatDef {
    /// The format's name as the spec writes it.
    pub name: &'static str,
    /// 32 or 64.
    pub bits: u8,
    /// Fields in ascending bit order.
    pub fields: &'static [FieldDef],
    /// What the format is used for (documentation).
    pub about: &'static str,
}

impl FormatDef {
    /// Looks a field up by name.
    pub fn field(&self, name: &str) -> Option<&FieldDef> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// Bits that belong to no field and must be zero.
    pub fn reserved_mask(&self) -> u64 {
        let all = if self.bits == 64 {
            u64::MAX
        } else {
            0xffff_ffff
        };
        all & !self.fields.iter().fold(0, |m, f| m | f.mask())
    }
}

const fn f(name: &'static str, lo: u8, width: u8) -> FieldDef {
    FieldDef { name, lo, width }
}

/// Every format, spec-named ones first.
pub static FORMATS: &[FormatDef] = &[
    FormatDef {
        name: "R",
        bits: 32,
        fields: &[
            f("op", 0, 7),
            f("rd", 7, 7),
            f("rs1", 14, 7),
            f("rs2", 21, 7),
            f("f4", 28, 4),
        ],
        about: "three vector registers",
    },
    FormatDef {
        name: "I8",
        bits: 32,
        fields: &[
            f("op", 0, 7),
            f("rd", 7, 7),
            f("rs1", 14, 7),
            f("f3", 21, 3),
            f("imm8", 24, 8),
        ],
        about: "two vector registers and an 8-bit immediate",
    },
    FormatDef {
        name: "RU",
        bits: 32,
        fields: &[
            f("op", 0, 7),
            f("rd", 7, 7),
            f("rs1", 14, 7),
            f("rs2", 21, 6),
            f("f5", 27, 5),
        ],
        about: "two vector registers (or a 7-bit lane) and a uniform register",
    },
    FormatDef {
        name: "R1",
        bits: 32,
        fields: &[
            f("op", 0, 7),
            f("rd", 7, 7),
            f("rs1", 14, 7),
            f("f11", 21, 11),
        ],
        about: "one vector source, one vector destination",
    },
    FormatDef {
        name: "C",
        bits: 32,
        fields: &[
            f("op", 0, 7),
            f("rd", 7, 6),
            f("rs1", 13, 7),
            f("f5", 20, 5),
        ],
        about: "vector source reduced into a uniform destination (bits 31:25 reserved)",
    },
    FormatDef {
        name: "CI",
        bits: 32,
        fields: &[
            f("op", 0, 7),
            f("rd", 7, 6),
            f("rs1", 13, 7),
            f("f4", 20, 4),
            f("imm8", 24, 8),
        ],
        about: "uniform destination, vector source, 8-bit immediate",
    },
    FormatDef {
        name: "CU",
        bits: 32,
        fields: &[
            f("op", 0, 7),
            f("rd", 7, 6),
            f("rs1", 13, 7),
            f("rs2", 20, 6),
            f("f6", 26, 6),
        ],
        about: "uniform destination, vector source, uniform source",
    },
    FormatDef {
        name: "SYS",
        bits: 32,
        fields: &[f("op", 0, 7), f("f5", 7, 5)],
        about: "no operands (bits 31:12 reserved)",
    },
    FormatDef {
        name: "M",
        bits: 64,
        fields: &[
            f("op", 0, 7),
            f("rd", 7, 7),
            f("rs1", 14, 7),
            f("rs2", 21, 6),
            f("f5", 27, 5),
            f("sp", 32, 3),
            f("f2", 35, 2),
            f("cpol", 37, 3),
            f("imm24", 40, 24),
        ],
        about:
            "vector memory: data/destination, address, uniform base or descriptor, space, offset",
    },
    FormatDef {
        name: "UM",
        bits: 64,
        fields: &[
            f("op", 0, 7),
            f("rd", 7, 6),
            f("rs1", 13, 6),
            f("rs2", 19, 6),
            f("f7", 25, 7),
            f("cpol", 32, 3),
            f("imm24", 40, 24),
        ],
        about: "uniform memory (bits 39:35 reserved)",
    },
    // Base-group formats (project-defined).
    FormatDef {
        name: "S",
        bits: 32,
        fields: &[
            f("op", 0, 7),
            f("f5", 7, 5),
            f("rs1", 12, 6),
            f("imm14", 18, 14),
        ],
        about: "control: program end, branches, waits, barrier, traps (base group)",
    },
    FormatDef {
        name: "UR",
        bits: 32,
        fields: &[
            f("op", 0, 7),
            f("rd", 7, 6),
            f("rs1", 13, 6),
            f("rs2", 19, 6),
            f("f7", 25, 7),
        ],
        about: "uniform ALU on registers (base group)",
    },
    FormatDef {
        name: "UI",
        bits: 64,
        fields: &[
            f("op", 0, 7),
            f("rd", 7, 6),
            f("rs1", 13, 6),
            f("f5", 19, 5),
            f("imm32", 32, 32),
        ],
        about: "uniform ALU with a 32-bit immediate (bits 31:24 reserved, base group)",
    },
    FormatDef {
        name: "CV",
        bits: 32,
        fields: &[
            f("op", 0, 7),
            f("rd", 7, 6),
            f("rs1", 13, 7),
            f("rs2", 20, 7),
            f("f5", 27, 5),
        ],
        about: "vector compare into a uniform lane mask (base group)",
    },
    FormatDef {
        name: "VI",
        bits: 64,
        fields: &[
            f("op", 0, 7),
            f("rd", 7, 7),
            f("rs1", 14, 7),
            f("f5", 21, 5),
            f("imm32", 32, 32),
        ],
        about: "vector ALU with a 32-bit immediate (bits 31:26 reserved, base group)",
    },
    FormatDef {
        name: "V3",
        bits: 64,
        fields: &[
            f("op", 0, 7),
            f("rd", 7, 7),
            f("rs1", 14, 7),
            f("rs2", 21, 7),
            f("rs3", 28, 7),
            f("f5", 35, 5),
        ],
        about: "vector ALU with three sources (bits 63:40 reserved, base group)",
    },
];

/// Looks a format up by name.
pub fn format_by_name(name: &str) -> Option<&'static FormatDef> {
    FORMATS.iter().find(|f| f.name == name)
}
