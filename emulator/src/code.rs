//! The code image decoded once at launch: each instruction with its operation resolved
//! from its table row, one entry per 32-bit code word. Below both the semantics and the
//! sanitizer, which read it, and the machine, which holds it.

use crate::isa::{Counter, Instr, Latency, Op};

/// An instruction decoded once, with its operation resolved.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Decoded {
    /// The instruction's fields as encoded (operands, immediate, cache policy).
    pub instr: Instr,
    /// What it does: its table row's `Op`, which the semantics match on.
    pub op: Op,
    /// Its encoded length in bytes: 4, or 8 for a 64-bit instruction.
    pub len: u8,
    /// The asynchronous counter it increments when issued (a memory operation that
    /// completes later), `None` for fixed-latency instructions.
    pub counter: Option<Counter>,
    /// Whether it works lane by lane ([`crate::isa::InstrDef::is_vector`]), for
    /// [`crate::machine::Stats::vector_lane_ops`].
    pub vector: bool,
}

impl Decoded {
    /// Resolves an instruction's operation, length and counter from its table row.
    pub fn new(instr: Instr) -> Self {
        let def = instr.def();
        Self {
            instr,
            op: def.op(),
            len: def.len,
            counter: match def.latency {
                Latency::Async(c) => Some(c),
                Latency::Fixed(_) => None,
            },
            vector: def.is_vector(),
        }
    }
}

/// What one 32-bit word of the code image holds.
#[derive(Debug, Clone, PartialEq)]
pub enum CodeWord {
    /// The first word of an instruction.
    Instr(Decoded),
    /// Not a legal instruction: the decoder's reason, reported if a wave executes it.
    Illegal(String),
    /// The second word of a 64-bit instruction (a PC here is a bad-PC fault).
    Inside,
}

/// Decodes a code image once: one [`CodeWord`] per word of `code`, same length.
pub fn decode_code(code: &[u32]) -> Vec<CodeWord> {
    let mut out = Vec::with_capacity(code.len());
    while out.len() < code.len() {
        match Instr::decode(&code[out.len()..]) {
            Ok(instr) => {
                let d = Decoded::new(instr);
                out.push(CodeWord::Instr(d));
                if d.len == 8 {
                    out.push(CodeWord::Inside);
                }
            }
            Err(e) => out.push(CodeWord::Illegal(e.to_string())),
        }
    }
    out
}
