//! The instruction set's tests: the table, encoding, text, assembler, disassembler and
//! the semantics of every instruction, checked against the spec, an independent
//! reference interpreter and AMD's documented behaviour.
//!
//! - `roundtrip.rs`: every definition encodes, decodes and prints back; the table's
//!   formats, opcodes and mnemonics are consistent;
//! - `properties.rs`: proptests of decoding arbitrary words and assembling arbitrary text;
//! - `disasm.rs`: disassembled listings assemble back to the same program;
//! - `asm_errors.rs`: assembler diagnostics, syntax, directives and kernel objects;
//! - `asm_hostile.rs`: hostile input: huge tokens and lines, capped reports, invisible
//!   characters, range-checked generated values, `.file` confinement;
//! - `docs.rs`: docs/isa.md matches the table;
//! - `spec_conformance.rs`: the table against the spec files (when present);
//! - `spec_choices.rs`: behaviour the spec leaves open, as chosen;
//! - `semantics_lsu.rs`, `semantics_xlane.rs`: memory and cross-lane instructions against
//!   reference functions written from the spec;
//! - `lockstep.rs`: random programs on the fast semantics against the reference
//!   interpreter, on the SIMD and the portable path;
//! - `amd_parity.rs`: instructions against their AMD GCN counterparts.
//!
//! `fixtures.rs` holds the semantic tests' harness (one-instruction machines, register and
//! memory access, lane assertions).

mod fixtures;

mod amd_parity;
mod asm_errors;
mod asm_hostile;
mod disasm;
mod docs;
mod lockstep;
mod properties;
mod roundtrip;
mod semantics_lsu;
mod semantics_xlane;
mod source_level;
mod spec_choices;
mod spec_conformance;
