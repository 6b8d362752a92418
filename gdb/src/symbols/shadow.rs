//! The bytes of the symbol file's `.text`: an x86 stand-in for the kernel's code with the
//! kernel's instruction boundaries and its control flow, for the clients that read the
//! file's code to plan a step.
//!
//! lldb steps a line ("fast stepping", its default) by disassembling the line's range from
//! the file, putting a breakpoint on the next branch it decodes (or past the range's last
//! instruction) and continuing; at the branch it single-steps. With the kernel's own words
//! there, it decoded x86 from them and asked for breakpoints inside instructions, so a
//! line step ran on past the line. Here each 32-bit code word is one 4-byte x86
//! instruction:
//! - the first word of an instruction that may not go on to the next one (a branch,
//!   `end`, `brk`, `trap`, `barrier`, or a word that does not decode) is
//!   `jmp *0x0(%rsp)` (`ff 64 24 00`), an x86 branch, so lldb stops there and steps it one
//!   instruction at a time;
//! - every other word (the rest of the instructions and the second word of a 64-bit one)
//!   is `nopl 0x0(%rax)` (`0f 1f 40 00`), so lldb runs over it to the next branch or the
//!   end of the line.
//!
//! lldb then asks only for breakpoints at the kernel's instructions. gdb reads code from
//! the server (and its disassembler asks the server for the kernel's instructions), so it
//! never sees these bytes while connected; the kernel's real words are the server's memory
//! at the same addresses.

use wavedbg_emulator::code::{decode_code, CodeWord};
use wavedbg_emulator::isa::Op;

/// `jmp *0x0(%rsp)`: a 4-byte x86 branch.
const X86_BRANCH: [u8; 4] = [0xff, 0x64, 0x24, 0x00];
/// `nopl 0x0(%rax)`: a 4-byte x86 no-op.
const X86_NOP: [u8; 4] = [0x0f, 0x1f, 0x40, 0x00];

/// The stand-in for `code` (4 bytes per word, same length as the code's bytes).
pub(super) fn x86_stand_in(code: &[u32]) -> Vec<u8> {
    decode_code(code)
        .iter()
        .flat_map(|word| {
            let may_not_fall_through = match word {
                CodeWord::Instr(d) => matches!(
                    d.op,
                    Op::Branch(_) | Op::End | Op::Brk | Op::Trap | Op::Barrier
                ),
                CodeWord::Illegal(_) => true,
                CodeWord::Inside => false,
            };
            if may_not_fall_through {
                X86_BRANCH
            } else {
                X86_NOP
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_instructions_are_branches_and_the_rest_no_ops() {
        let p = wavedbg_emulator::asm::assemble(
            ".kernel k\n.grid 1\n.workgroup 32\ntop:\n    vaddi.u32 v1, v1, 1\n    barrier\n    \
             br.unz u0, top\n    end\n",
            "k.s",
            None,
        )
        .expect("assembles");
        let bytes = x86_stand_in(&p.code);
        assert_eq!(bytes.len(), p.code.len() * 4);
        let words: Vec<[u8; 4]> = bytes
            .chunks(4)
            .map(|c| c.try_into().expect("4 bytes"))
            .collect();
        // `vaddi.u32` is a 64-bit instruction: two no-ops.
        assert_eq!(
            words,
            [X86_NOP, X86_NOP, X86_BRANCH, X86_BRANCH, X86_BRANCH]
        );
        // A word that does not decode is a branch: the wave faults there.
        assert_eq!(x86_stand_in(&[0xffff_ffff]), X86_BRANCH);
    }
}
