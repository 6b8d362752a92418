//! The code image, decoded once at launch into one entry per code word.

use crate::exec::Decoded;
use crate::isa::Instr;

/// A decoded code word.
#[derive(Debug, Clone, PartialEq)]
pub enum CodeWord {
    /// The start of an instruction.
    Instr(Decoded),
    /// Not a legal instruction (the decoder's reason).
    Illegal(String),
    /// The second word of a 64-bit instruction.
    Inside,
}

/// Decodes a code image once.
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
