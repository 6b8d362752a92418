//! wavedbg's core: the instruction set as one table, the assembler and disassembler, the
//! machine and its semantics, and the debug engine. No terminal, network or CLI code.

pub mod asm;
pub mod bench;
pub mod check;
pub mod code;
pub mod debug;
pub mod demo;
pub mod disasm;
pub mod exec;
pub mod fault;
pub mod files;
pub mod isa;
pub mod machine;
pub mod memory;
pub mod program;
pub mod trace;
pub mod wave;

/// The longest text a message quotes whole; a longer one is cut (a megabyte of pasted text
/// must not come back as a megabyte of error).
const MAX_QUOTED: usize = 48;

/// The longest message [`clip_quoted`] leaves whole.
const MAX_MESSAGE: usize = 400;

/// `message` with every `quoted` part longer than [`MAX_QUOTED`] characters cut to its start,
/// `…` and its length in bytes, and the whole cut to [`MAX_MESSAGE`] characters (for a
/// parser that quotes the input its own way): an error about a huge input stays a line
/// long. Every error that quotes user text goes through it (assembler, command language,
/// expressions, sessions, scripts, objects).
pub fn clip_quoted(message: String) -> String {
    if message.len() <= 2 * MAX_QUOTED {
        return message;
    }
    let mut out = String::new();
    let mut after_quote = String::new();
    for (i, part) in message.split('`').enumerate() {
        if i > 0 {
            out.push('`');
            out.push_str(&std::mem::take(&mut after_quote));
        }
        if i % 2 == 1 && part.chars().nth(MAX_QUOTED).is_some() {
            out.extend(part.chars().take(MAX_QUOTED - 8));
            out.push('…');
            after_quote = format!(" ({} bytes)", part.len());
        } else {
            out.push_str(part);
        }
    }
    if out.chars().nth(MAX_MESSAGE).is_some() {
        let total = out.len();
        let mut cut: String = out.chars().take(MAX_MESSAGE - 32).collect();
        cut.push_str(&format!("… ({total} bytes)"));
        return cut;
    }
    out
}

/// What an I/O error says, for a user: `No such file or directory`, without Rust's
/// ` (os error 2)` suffix.
pub fn io_reason(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.rfind(" (os error ") {
        Some(i) if text.ends_with(')') => text[..i].to_string(),
        _ => text,
    }
}
