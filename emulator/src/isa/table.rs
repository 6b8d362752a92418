//! The instruction table's row type: one row per instruction, holding exactly what the
//! spec lists (or, for the project's base group, what docs/isa.md defines).

use serde::Serialize;

use super::op::Op;

/// The execution unit an instruction belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// Load/store/atomic unit (spec group 4).
    Lsu,
    /// Cross-lane unit (spec group 5).
    Xlane,
    /// The project-defined base group (control flow, uniform and vector ALU).
    Base,
}

impl Unit {
    /// The unit's name as printed in listings and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Unit::Lsu => "lsu",
            Unit::Xlane => "xlane",
            Unit::Base => "base",
        }
    }
}

/// Where an instruction's definition comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// A row of the vendor spec (binding in every detail).
    Spec,
    /// Defined by this project (docs/isa.md, "base group").
    Base,
}

/// One row of the instruction table, in the spec's own notation.
///
/// Text fields are kept as the spec writes them (`"async:vm"`, `"ld bc"`,
/// `"rd:v rs1:vp^2 imm:s24 cpol:cpol"`); [`crate::isa::Isa`] compiles them into typed form once.
#[derive(Debug, Clone, Copy)]
pub struct InstrRow {
    /// Unit (lsu, xlane or base).
    pub unit: Unit,
    /// Mnemonic, e.g. `ld.ubase.b32`.
    pub mnemonic: &'static str,
    /// Format name (R I8 RU R1 C CI CU SYS M UM, plus the base formats).
    pub format: &'static str,
    /// The 7-bit opcode; bit 0 is the length bit (1 = 64-bit word).
    pub opcode: u8,
    /// Function-field values, e.g. `[("f5", 3), ("sp", 1), ("f2", 0)]`.
    pub fields: &'static [(&'static str, u32)],
    /// Latency class: `fixed:N` or `async:vm|vst|ls|sm`.
    pub latency: &'static str,
    /// Flags separated by spaces, in the spec's order.
    pub flags: &'static str,
    /// The syntax line's operand list, e.g. `rd:v rs2:up^2 rs1:v imm:s24 cpol:cpol`.
    pub syntax: &'static str,
    /// One-line semantics.
    pub semantics: &'static str,
    /// Spec row or project-defined.
    pub origin: Origin,
    /// The operation `exec` performs: semantics are bound to the row here, once.
    pub op: Op,
}

impl InstrRow {
    /// Builds a row; used by the static tables.
    #[allow(clippy::too_many_arguments)]
    pub(crate) const fn new(
        unit: Unit,
        mnemonic: &'static str,
        format: &'static str,
        opcode: u8,
        fields: &'static [(&'static str, u32)],
        latency: &'static str,
        flags: &'static str,
        syntax: &'static str,
        semantics: &'static str,
        origin: Origin,
        op: Op,
    ) -> Self {
        Self {
            unit,
            mnemonic,
            format,
            opcode,
            fields,
            latency,
            flags,
            syntax,
            semantics,
            origin,
            op,
        }
    }
}
