//! The disassembly pane's state: the kernel's code decoded once into lines, and the code
//! cursor, which moves with the source cursor (see `source`).

use ratatui::crossterm::event::KeyCode;
use wavedbg_emulator::disasm;
use wavedbg_emulator::machine::Machine;

use super::input::Motion;
use super::state::App;
use crate::pane::Pane;

/// One line of the disassembly (decoded once: the code never changes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeLine {
    /// The instruction's byte address in the code image.
    pub addr: u64,
    /// The labels that name this address, in the program's order.
    pub labels: Vec<String>,
    /// The instruction as the disassembler writes it (`.word 0x…` for a word that does
    /// not decode).
    pub text: String,
}

/// The disassembly pane's state: the decoded kernel, built once (the code never
/// changes), and the cursor in it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CodePane {
    /// The kernel's instructions in address order (so searchable by address).
    pub lines: Vec<CodeLine>,
    /// The cursor: an index into `lines` (0 when there are none).
    pub cursor: usize,
}

impl CodePane {
    /// The disassembly of `m`'s kernel, the cursor on its first instruction.
    pub fn of(m: &Machine) -> CodePane {
        let decoded = disasm::decode_all(&m.program().code);
        let labels = disasm::labels_for(&m.program().labels, &decoded);
        let lines = decoded
            .iter()
            .map(|l| CodeLine {
                addr: l.addr,
                labels: labels.get(&l.addr).cloned().unwrap_or_default(),
                text: match &l.instr {
                    Some(i) => disasm::instr_text(i, l.addr, &labels),
                    None => format!(".word {:#010x}", l.words.first().copied().unwrap_or(0)),
                },
            })
            .collect();
        CodePane { lines, cursor: 0 }
    }

    /// The index in `lines` of the instruction at `addr`.
    pub fn index_of(&self, addr: u64) -> Option<usize> {
        self.lines.binary_search_by_key(&addr, |l| l.addr).ok()
    }
}

impl App {
    /// Code keys: the cursor moves a line, a page, to the first or last line, or (`.`) to
    /// the selected wave's PC; the source cursor follows. Returns whether the key was used.
    pub(super) fn code_key(&mut self, code: KeyCode) -> bool {
        let page = self.page(Pane::Code);
        let last = self.code.lines.len().saturating_sub(1);
        let c = &mut self.code.cursor;
        match (Motion::of(code), code) {
            (Some(Motion::Down), _) => *c = (*c + 1).min(last),
            (Some(Motion::Up), _) => *c = c.saturating_sub(1),
            (Some(Motion::PageDown), _) => *c = (*c + page).min(last),
            (Some(Motion::PageUp), _) => *c = c.saturating_sub(page),
            (Some(Motion::Home), _) => *c = 0,
            (Some(Motion::End), _) => *c = last,
            (_, KeyCode::Char('.')) => self.follow_pc(),
            _ => return false,
        }
        self.sync_source_to_code();
        true
    }
}
