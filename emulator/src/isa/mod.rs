//! The instruction set as one table.
//!
//! `spec_rows` holds the 338 rows of the spec chapters verbatim and `base_rows` the
//! project's base group; [`format`](mod@format) holds the bit layouts. Everything else (encoder,
//! decoder, assembler, disassembler, the `isa` listing and docs/isa.md) is derived from
//! these tables by [`Isa`], compiled once on first use.

mod base_rows;
pub mod format;
mod instr;
mod listing;
pub mod op;
pub mod operand;
mod spec_rows;
pub mod table;

use std::collections::HashMap;
use std::sync::OnceLock;

pub use format::{FieldDef, FormatDef, FORMATS};
pub use instr::{DecodeError, EncodeError, Instr};
pub use listing::IsaEntry;
pub use op::Op;
pub use operand::{ImmKind, OperandDef, OperandKind, RegFile, Slot};
pub use table::{InstrRow, Origin, Unit};

/// An index into [`Isa::defs`].
pub type InstrId = u16;

/// The async counters of a wave.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Counter {
    /// Vector memory loads, returning atomics, cache invalidation, scratch.
    Vm,
    /// Vector stores, atomics without return, cache write-back.
    Vst,
    /// Shared-memory accesses.
    Ls,
    /// Uniform (scalar) loads.
    Sm,
}

impl Counter {
    /// All counters, in index order.
    pub const ALL: [Counter; 4] = [Counter::Vm, Counter::Vst, Counter::Ls, Counter::Sm];

    /// The counter's name.
    pub const fn name(self) -> &'static str {
        match self {
            Counter::Vm => "vm",
            Counter::Vst => "vst",
            Counter::Ls => "ls",
            Counter::Sm => "sm",
        }
    }

    /// Index 0-3.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Whether the counter's operations complete in issue order (the spec's async
    /// classes: vector loads and returning atomics, stores, shared-memory accesses), so
    /// a later operation's register write lands after an earlier one's. Uniform loads
    /// are not promised to (AMD's scalar loads return out of order): only their wait
    /// orders them.
    pub const fn retires_in_order(self) -> bool {
        !matches!(self, Counter::Sm)
    }
}

/// An instruction's latency class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Latency {
    /// Completes in a fixed number of cycles.
    Fixed(u8),
    /// Completes asynchronously; tracked by a counter.
    Async(Counter),
}

/// Instruction flags (the spec's flag column).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Flags(pub u16);

/// Flag names in bit order.
pub const FLAG_NAMES: [&str; 12] = [
    "ei", "co", "ld", "st", "at", "bc", "opt", "xl", "wqm", "fm", "re", "ur",
];

impl Flags {
    /// Ignores EXEC.
    pub const EI: Flags = Flags(1 << 0);
    /// Cache invalidate or write-back (`cache.*`).
    pub const CO: Flags = Flags(1 << 1);
    /// Reads memory into registers.
    pub const LD: Flags = Flags(1 << 2);
    /// Writes registers to memory.
    pub const ST: Flags = Flags(1 << 3);
    /// Read-modify-write of memory (`atom.*`).
    pub const AT: Flags = Flags(1 << 4);
    /// Bounds-checked (buffer descriptor).
    pub const BC: Flags = Flags(1 << 5);
    /// An optional feature of the spec (the f32 atomics).
    pub const OPT: Flags = Flags(1 << 6);
    /// Cross-lane.
    pub const XL: Flags = Flags(1 << 7);
    /// Whole-quad mode.
    pub const WQM: Flags = Flags(1 << 8);
    /// The result depends on the float mode (the f32 derivatives).
    pub const FM: Flags = Flags(1 << 9);
    /// Combines the active lanes' values (reductions, scans, votes, `ballot`, `readfirst`).
    pub const RE: Flags = Flags(1 << 10);
    /// Writes a uniform register.
    pub const UR: Flags = Flags(1 << 11);

    /// Whether all bits of `other` are set.
    pub const fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }
}

/// An instruction definition compiled from its row.
#[derive(Debug, Clone)]
pub struct InstrDef {
    /// The row as written in the table.
    pub row: &'static InstrRow,
    /// Its format (bit layout), looked up by the row's format name.
    pub format: &'static FormatDef,
    /// Operands in syntax order.
    pub operands: Vec<OperandDef>,
    /// Latency class parsed from the row's `latency` text (`fixed:N` or `async:COUNTER`).
    pub latency: Latency,
    /// Flags parsed from the row's `flags` text, one bit per [`FLAG_NAMES`] entry.
    pub flags: Flags,
    /// Bits that identify the instruction (opcode and function fields) plus the bits that
    /// must be zero (reserved bits and fields the instruction does not use).
    pub fixed_mask: u64,
    /// Required values under `fixed_mask`.
    pub fixed_bits: u64,
    /// Length in bytes: 4 or 8.
    pub len: u8,
}

impl InstrDef {
    /// The mnemonic, e.g. `ld.global.b32`; unique across the table.
    pub fn mnemonic(&self) -> &'static str {
        self.row.mnemonic
    }

    /// The operation it performs.
    pub fn op(&self) -> Op {
        self.row.op
    }

    /// The operand in `slot`, if the instruction has one.
    pub fn operand(&self, slot: Slot) -> Option<&OperandDef> {
        self.operands.iter().find(|o| o.slot == slot)
    }

    /// Whether it works lane by lane: it has a vector register operand (a vector ALU
    /// operation, vector memory, a compare into a lane mask, a reduction of a vector into
    /// a uniform register). Uniform ALU, uniform memory, control and cache operations do
    /// not; their work is one per wave, so statistics count their lanes apart.
    pub fn is_vector(&self) -> bool {
        self.operands.iter().any(|o| {
            matches!(
                o.kind,
                OperandKind::Reg {
                    file: RegFile::Vector,
                    ..
                }
            )
        })
    }
}

/// A defect of the table itself (found by tests, never by users).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("instruction table row `{mnemonic}`: {problem}")]
pub struct TableError {
    /// The row's mnemonic.
    pub mnemonic: &'static str,
    /// What is wrong with the row, in a sentence.
    pub problem: String,
}

/// The compiled instruction set: definitions plus encode/decode/lookup indexes.
#[derive(Debug)]
pub struct Isa {
    defs: Vec<InstrDef>,
    by_mnemonic: HashMap<&'static str, InstrId>,
    /// Per opcode: the mask of the function fields and a map from their bits to the id.
    by_opcode: Vec<Option<(u64, HashMap<u64, InstrId>)>>,
}

static ISA: OnceLock<Isa> = OnceLock::new();

/// Every row: spec rows first (in spec order), then the base group.
pub fn rows() -> impl Iterator<Item = &'static InstrRow> {
    spec_rows::SPEC_ROWS
        .iter()
        .chain(base_rows::BASE_ROWS.iter())
}

impl Isa {
    /// The instruction set, compiled on first use.
    ///
    /// # Panics
    /// Only if the static table is inconsistent, which the test suite rules out.
    pub fn get() -> &'static Isa {
        ISA.get_or_init(|| match Isa::build() {
            Ok(isa) => isa,
            Err(e) => panic!("{e}"),
        })
    }

    /// Compiles the static tables, checking their consistency.
    pub fn build() -> Result<Isa, TableError> {
        let mut defs = Vec::new();
        let mut by_mnemonic = HashMap::new();
        let mut by_opcode: Vec<Option<(u64, HashMap<u64, InstrId>)>> = vec![None; 128];
        for row in rows() {
            let err = |problem: String| TableError {
                mnemonic: row.mnemonic,
                problem,
            };
            let def = compile_row(row).map_err(err)?;
            let id = defs.len() as InstrId;
            if by_mnemonic.insert(row.mnemonic, id).is_some() {
                return Err(err("duplicate mnemonic".into()));
            }
            let func_mask = def
                .row
                .fields
                .iter()
                .filter_map(|(n, _)| def.format.field(n))
                .fold(0x7f, |m, f| m | f.mask());
            let slot = &mut by_opcode[row.opcode as usize];
            let (mask, map) = slot.get_or_insert_with(|| (func_mask, HashMap::new()));
            if *mask != func_mask {
                return Err(err(format!(
                    "opcode {:#x} is shared with rows of another format",
                    row.opcode
                )));
            }
            if map.insert(def.fixed_bits & func_mask, id).is_some() {
                return Err(err("encoding collides with another row".into()));
            }
            defs.push(def);
        }
        Ok(Isa {
            defs,
            by_mnemonic,
            by_opcode,
        })
    }

    /// All definitions, spec rows first.
    pub fn defs(&self) -> &[InstrDef] {
        &self.defs
    }

    /// The definition with this id.
    pub fn def(&self, id: InstrId) -> &InstrDef {
        &self.defs[id as usize]
    }

    /// Looks up a mnemonic.
    pub fn lookup(&self, mnemonic: &str) -> Option<InstrId> {
        self.by_mnemonic.get(mnemonic).copied()
    }

    /// The mnemonics closest to `word` by edit distance (for "did you mean" hints).
    pub fn nearest(&self, word: &str, n: usize) -> Vec<&'static str> {
        let mut scored: Vec<(usize, &'static str)> = self
            .defs
            .iter()
            .map(|d| (edit_distance(word, d.mnemonic()), d.mnemonic()))
            .collect();
        scored.sort();
        scored.into_iter().take(n).map(|(_, m)| m).collect()
    }

    /// Identifies the instruction a word belongs to from its opcode and function fields,
    /// without validating the rest.
    pub(crate) fn identify(&self, low: u32, high: u32) -> Option<InstrId> {
        let word = (low as u64) | ((high as u64) << 32);
        let (mask, map) = self.by_opcode[(low & 0x7f) as usize].as_ref()?;
        map.get(&(word & mask)).copied()
    }
}

fn compile_row(row: &'static InstrRow) -> Result<InstrDef, String> {
    let format = format::format_by_name(row.format)
        .ok_or_else(|| format!("unknown format {}", row.format))?;
    if row.opcode > 0x7f {
        return Err("opcode wider than 7 bits".into());
    }
    let long = row.opcode & 1 == 1;
    if long != (format.bits == 64) {
        return Err("opcode length bit disagrees with the format".into());
    }
    let mut operands = Vec::new();
    for tok in row.syntax.split_whitespace() {
        let op = OperandDef::parse(tok).map_err(|e| e.to_string())?;
        if field_of(format, op.slot).is_none() {
            return Err(format!("format {} has no field for {tok}", format.name));
        }
        operands.push(op);
    }
    let latency =
        parse_latency(row.latency).ok_or_else(|| format!("bad latency {}", row.latency))?;
    let mut flags = Flags::default();
    for name in row.flags.split_whitespace() {
        let bit = FLAG_NAMES
            .iter()
            .position(|n| *n == name)
            .ok_or_else(|| format!("unknown flag {name}"))?;
        flags.0 |= 1 << bit;
    }
    let all = if format.bits == 64 {
        u64::MAX
    } else {
        0xffff_ffff
    };
    let mut fixed_mask = all;
    let mut fixed_bits = row.opcode as u64;
    for f in format.fields {
        if f.name == "op" {
            continue;
        }
        if let Some((_, v)) = row.fields.iter().find(|(n, _)| *n == f.name) {
            if (*v as u64) >> f.width != 0 {
                return Err(format!("{} value {v:#x} does not fit", f.name));
            }
            fixed_bits |= (*v as u64) << f.lo;
        } else if operands.iter().any(|o| field_of(format, o.slot) == Some(f)) {
            fixed_mask &= !f.mask();
        }
    }
    for (n, _) in row.fields {
        if format.field(n).is_none() {
            return Err(format!("format {} has no field {n}", format.name));
        }
    }
    Ok(InstrDef {
        row,
        format,
        operands,
        latency,
        flags,
        fixed_mask,
        fixed_bits,
        len: format.bits / 8,
    })
}

/// The field an operand slot occupies in a format.
pub(crate) fn field_of(format: &'static FormatDef, slot: Slot) -> Option<&'static FieldDef> {
    match slot {
        Slot::Imm => format.fields.iter().find(|f| f.name.starts_with("imm")),
        other => format.field(other.name()),
    }
}

fn parse_latency(text: &str) -> Option<Latency> {
    let (class, arg) = text.split_once(':')?;
    match class {
        "fixed" => arg.parse().ok().map(Latency::Fixed),
        "async" => Counter::ALL
            .iter()
            .find(|c| c.name() == arg)
            .map(|c| Latency::Async(*c)),
        _ => None,
    }
}

pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}
