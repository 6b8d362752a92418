//! Resizing the wide layout's splits: `<`/`>` move the line between the left and right
//! columns, `+`/`-` grow or shrink the focused pane. Each key becomes a `set split`
//! command, so the engine keeps the size (a saved session too) and `--record` captures it.

use wavedbg_emulator::debug::command::Command;
use wavedbg_emulator::debug::panes::{SplitTarget, Splits};

use super::state::App;
use crate::pane::Pane;

/// How far one key moves a split, in percent of its column.
pub const SPLIT_STEP: u16 = 5;

impl App {
    /// `+`/`-`/`<`/`>`: sends `set split` for the split the key and the focused pane name,
    /// one [`SPLIT_STEP`] from its size (a message when there is none).
    pub(super) fn resize_split(&mut self, key: char) {
        if self.hits.compact || self.zoom {
            self.complain("Splits resize when every pane shows (100x30 and more, not maximised).");
            return;
        }
        if self.is_running() {
            // A command, so it waits for the engine like every other.
            self.refuse_busy();
            return;
        }
        // Which split, and whether the key grows it.
        let (target, grow) = match (key, self.focus) {
            ('>', _) => (SplitTarget::Left, true),
            ('<', _) => (SplitTarget::Left, false),
            (_, Pane::Source) => (SplitTarget::Source, key == '+'),
            // The disassembly grows as the source above it shrinks.
            (_, Pane::Code) => (SplitTarget::Source, key == '-'),
            (_, Pane::Console) => (SplitTarget::Console, key == '+'),
            (_, Pane::Lanes) => (SplitTarget::Lanes, key == '+'),
            (_, Pane::Memory) => (SplitTarget::Lanes, key == '-'),
            (_, Pane::Locals) => {
                self.complain(
                    "The Locals pane is as tall as its variables (taken from memory's part): \
                     +/- on the Lanes or Memory pane resize that part.",
                );
                return;
            }
            (_, Pane::Watch) => {
                // Its height follows its displays, out of the part below the registers
                // that the lanes split leaves to memory.
                self.complain(
                    "The Watch pane is as tall as its displays (taken from memory's part): \
                     +/- on the Lanes or Memory pane resize that part.",
                );
                return;
            }
            _ => {
                self.complain(
                    "+/- resize the Source, Code, Console, Lanes and Memory panes; </> the columns.",
                );
                return;
            }
        };
        if target == SplitTarget::Source && self.layout != crate::pane::CodeLayout::Split {
            self.complain("The source and the disassembly split only in the split layout (v).");
            return;
        }
        // From the size set, else from the default's size in the last frame; within what
        // the layout can draw at this size (every pane keeps its minimum), so a key
        // never moves the split where nothing changes.
        let set = self.engine.panes().splits.get(target);
        let (lo, hi) = match self.hits.split_bounds[target as usize] {
            (0, 0) => (*Splits::RANGE.start(), *Splits::RANGE.end()),
            bounds => bounds,
        };
        let now = set
            .unwrap_or(self.hits.split_shares[target as usize])
            .clamp(lo, hi);
        let next = if grow {
            now.saturating_add(SPLIT_STEP)
        } else {
            now.saturating_sub(SPLIT_STEP)
        }
        .clamp(lo, hi);
        if next == now {
            self.complain(format!(
                "The {} split is at its {} ({next}%).",
                target.word(),
                if grow { "largest" } else { "smallest" }
            ));
            return;
        }
        self.submit_commands(vec![Command::SetSplit(target, Some(next))]);
    }
}
