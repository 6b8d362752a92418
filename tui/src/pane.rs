//! The panes of the screen. Both the state ([`crate::app`]) and drawing ([`crate::ui`])
//! name them, and so does [`crate::hits`]; they depend on nothing.

/// The panes, in focus order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pane {
    /// Disassembly.
    Code,
    /// Resident waves.
    Waves,
    /// The lane grid (v registers x lanes).
    Lanes,
    /// PC, EXEC, counters and u registers of the selected wave.
    Registers,
    /// Memory hex view.
    Memory,
    /// Breakpoints and watchpoints.
    Breakpoints,
    /// Command output.
    Console,
}

impl Pane {
    /// Every pane, in focus order.
    pub const ALL: [Pane; 7] = [
        Pane::Code,
        Pane::Waves,
        Pane::Lanes,
        Pane::Registers,
        Pane::Memory,
        Pane::Breakpoints,
        Pane::Console,
    ];

    /// The pane's title.
    pub fn title(self) -> &'static str {
        match self {
            Pane::Code => "Code",
            Pane::Waves => "Waves",
            Pane::Lanes => "Lanes",
            Pane::Registers => "Registers",
            Pane::Memory => "Memory",
            Pane::Breakpoints => "Breakpoints",
            Pane::Console => "Console",
        }
    }

    /// Position in [`Pane::ALL`].
    pub fn index(self) -> usize {
        Pane::ALL.iter().position(|p| *p == self).unwrap_or(0)
    }

    /// The pane `by` places on in focus order (wrapping around).
    pub(crate) fn step(self, by: isize) -> Pane {
        let n = Pane::ALL.len() as isize;
        Pane::ALL[(self.index() as isize + by).rem_euclid(n) as usize]
    }
}
