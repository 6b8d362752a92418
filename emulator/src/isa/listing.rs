//! Listings derived from the table: the `isa` listing (text and JSON entries) and
//! docs/isa.md.

use std::fmt::Write;

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use super::{InstrDef, Isa, Origin, FORMATS};

/// One instruction as `wavedbg isa --json` prints it.
#[derive(Debug, Clone, Serialize)]
pub struct IsaEntry {
    /// Mnemonic, e.g. `ld.global.b32`.
    pub mnemonic: &'static str,
    /// Unit: lsu, xlane or base.
    pub unit: &'static str,
    /// Format name (a [`FORMATS`] entry), e.g. `M`.
    pub format: &'static str,
    /// Opcode (7 bits).
    pub opcode: u8,
    /// Function-field values in the spec's order, e.g. {"f5":3,"sp":1,"f2":0}.
    #[serde(serialize_with = "ordered_map")]
    pub fields: &'static [(&'static str, u32)],
    /// Latency class as written: fixed:N or async:COUNTER.
    pub latency: &'static str,
    /// Flags in the spec's order.
    pub flags: Vec<&'static str>,
    /// The syntax line's operands, e.g. ["rd:v","rs2:up^2","rs1:v","imm:s24","cpol:cpol"].
    pub operands: Vec<&'static str>,
    /// "spec" or "base".
    pub origin: Origin,
    /// Length in bytes (4 or 8).
    pub length: u8,
    /// One-line semantics.
    pub semantics: &'static str,
}

fn ordered_map<S: Serializer>(
    fields: &&'static [(&'static str, u32)],
    s: S,
) -> Result<S::Ok, S::Error> {
    let mut m = s.serialize_map(Some(fields.len()))?;
    for (k, v) in fields.iter() {
        m.serialize_entry(k, v)?;
    }
    m.end()
}

impl IsaEntry {
    /// The entry of a definition.
    pub fn of(def: &InstrDef) -> Self {
        let r = def.row;
        Self {
            mnemonic: r.mnemonic,
            unit: r.unit.name(),
            format: r.format,
            opcode: r.opcode,
            fields: r.fields,
            latency: r.latency,
            flags: r.flags.split_whitespace().collect(),
            operands: r.syntax.split_whitespace().collect(),
            origin: r.origin,
            length: def.len,
            semantics: r.semantics,
        }
    }
}

impl Isa {
    /// Every instruction's listing entry, spec rows first.
    pub fn entries(&self) -> Vec<IsaEntry> {
        self.defs().iter().map(IsaEntry::of).collect()
    }

    /// A one-line-per-instruction text listing.
    pub fn listing(&self) -> String {
        let mut out = String::new();
        for d in self.defs() {
            let r = d.row;
            let _ = writeln!(
                out,
                "{:<30} {:<5} {:<3} op={:#04x} {:<22} {:<9} {:<12} {}",
                r.mnemonic,
                r.unit.name(),
                r.format,
                r.opcode,
                fields_text(r),
                r.latency,
                r.flags,
                r.syntax
            );
        }
        out
    }

    /// docs/isa.md, generated from the table (a test keeps the committed file up to date).
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        out.push_str(MD_HEAD);
        out.push_str("\n## Formats\n\n");
        out.push_str("Bit positions are the project's decision (the spec names the fields, not their positions). ");
        out.push_str("Bit 0 of the opcode is the length bit: odd opcodes are 64-bit instructions, stored as two 32-bit words, low word first. ");
        out.push_str("Bits outside every field, and fields an instruction does not use, are reserved and must be zero: a word with any of them set decodes as an illegal instruction.\n\n");
        out.push_str(
            "| format | bits | fields (high to low) | reserved | use |\n|---|---|---|---|---|\n",
        );
        for f in FORMATS {
            let mut fields: Vec<String> = f
                .fields
                .iter()
                .rev()
                .map(|x| format!("{}[{}:{}]", x.name, x.lo + x.width - 1, x.lo))
                .collect();
            if fields.is_empty() {
                fields.push("-".into());
            }
            let reserved = f.reserved_mask();
            let reserved = if reserved == 0 {
                "none".to_string()
            } else {
                format!("{reserved:#x}")
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                f.name,
                f.bits,
                fields.join(" "),
                reserved,
                f.about
            );
        }
        out.push_str(MD_OPERANDS);
        for (title, origin) in [
            ("Spec instructions", Origin::Spec),
            ("Base group (project-defined, `origin: base`)", Origin::Base),
        ] {
            let _ = writeln!(out, "\n## {title}\n");
            out.push_str("| mnemonic | unit | format | opcode | fields | latency | flags | operands | semantics |\n|---|---|---|---|---|---|---|---|---|\n");
            for d in self.defs().iter().filter(|d| d.row.origin == origin) {
                let r = d.row;
                let _ = writeln!(
                    out,
                    "| `{}` | {} | {} | {:#04x} | {} | {} | {} | {} | {} |",
                    r.mnemonic,
                    r.unit.name(),
                    r.format,
                    r.opcode,
                    fields_text(r),
                    r.latency,
                    r.flags,
                    if r.syntax.is_empty() {
                        "-".to_string()
                    } else {
                        format!("`{}`", r.syntax)
                    },
                    r.semantics.replace('|', "\\|")
                );
            }
        }
        out
    }
}

/// Function fields as `f5=0x3 sp=0x1 f2=0x0`.
fn fields_text(r: &super::InstrRow) -> String {
    r.fields
        .iter()
        .map(|(k, v)| format!("{k}={v:#x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

const MD_HEAD: &str = "# The wavedbg instruction set

Generated from the instruction table in `emulator/src/isa/` by `wavedbg isa --markdown`; a test fails when this file and the table disagree.

The table holds the 338 instructions of the vendor spec chapters (group 4, unit `lsu`, 301 instructions; group 5, unit `xlane`, 37 instructions), whose mnemonics, operand order, formats, opcodes, function fields, latency classes, flags and semantics are copied verbatim, and a project-defined base group (`origin: base`) that makes real kernels writable: program end, branches, waits, barrier, traps, uniform and vector ALU, EXEC manipulation, ids and 64-bit address arithmetic. Base opcodes never collide with spec opcodes.
";

const MD_OPERANDS: &str = "
## Operands

| kind | text | meaning |
|---|---|---|
| `v` | `v5` | a vector register v0-v127 |
| `v^N` | `v[4:5]` (or `v4`) | N consecutive vector registers; the field holds the first |
| `vp^2` | `v[2:3]` | a vector register pair holding a 64-bit address per lane (low word first) |
| `u`, `u^N` | `u7`, `u[8:15]` | uniform register(s) u0-u63 |
| `up^2` | `u[0:1]` | a uniform pair holding a 64-bit address |
| `d4^4` | `u[4:7]` | four uniform registers holding a buffer descriptor (docs/memory.md) |
| `*` suffix | | the register is written (returning atomics, writelane) |
| `ln7` | `0`-`127` | a lane number encoded in a 7-bit register field |
| `s8`, `u8`, `s24` | `-3`, `0x1b`, `-16` | immediates, range-checked |
| `u6`, `u14` | `0`, `12` | unsigned immediates (base group) |
| `b32` | `42`, `0xffffffff`, `-1`, `1.5` | any 32-bit pattern: integer or f32 literal (base group) |
| `rel14` | `loop`, `.+8` | branch target: signed count of 4-byte words from the branch (base group) |
| `cpol` | `glc slc nt` | cache-policy bits: bit 0 `glc`, bit 1 `slc`, bit 2 `nt`; omitted when 0 |

Trailing `imm:s24` and `cpol` operands may be omitted in assembly (they default to 0); the disassembler always prints the immediate and prints `cpol` only when it is not 0.
";
