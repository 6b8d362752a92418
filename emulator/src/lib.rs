//! wavedbg's core: the instruction set as one table, the assembler and disassembler, the
//! machine and its semantics, and the debug engine. No terminal, network or CLI code.

pub mod asm;
pub mod debug;
pub mod demo;
pub mod disasm;
pub mod exec;
pub mod isa;
pub mod machine;
pub mod memory;
pub mod program;
