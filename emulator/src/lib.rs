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

/// What an I/O error says, for a user: `No such file or directory`, without Rust's
/// ` (os error 2)` suffix.
pub fn io_reason(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.rfind(" (os error ") {
        Some(i) if text.ends_with(')') => text[..i].to_string(),
        _ => text,
    }
}
