//! The panes of the screen, and which of the two code views show. Both the state
//! ([`crate::app`]) and drawing ([`crate::ui`]) name them, and so does [`crate::hits`];
//! they depend on nothing.

/// The panes, in the order of their digit keys (`1`-`9`, then `0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pane {
    /// The disassembly, with the PC, breakpoint and finding marks.
    Code,
    /// The resident waves: each one's state and PC; the selected one highlighted.
    Waves,
    /// The lane grid (v registers x lanes).
    Lanes,
    /// PC, EXEC, counters and u registers of the selected wave.
    Registers,
    /// A hex view of global, shared or scratch memory, watched bytes marked.
    Memory,
    /// The breakpoints, then the watchpoints: enabled or not, where, hits, condition.
    Breakpoints,
    /// Every command run and its output, scrollable.
    Console,
    /// The kernel's `.s` source, with the code pane's marks.
    Source,
    /// The `display` expressions and their values (per lane for vector ones); shown while
    /// there are displays, or while focused.
    Watch,
    /// The source variables live at the selected wave's PC and their values per lane;
    /// shown when the kernel has variables (`.var`), or while focused.
    Locals,
}

/// How many panes there are (the digit keys `1` to `9`, then `0`).
pub const PANES: usize = 10;

impl Pane {
    /// Every pane, in the order of their digit keys.
    pub const ALL: [Pane; PANES] = [
        Pane::Code,
        Pane::Waves,
        Pane::Lanes,
        Pane::Registers,
        Pane::Memory,
        Pane::Breakpoints,
        Pane::Console,
        Pane::Source,
        Pane::Watch,
        Pane::Locals,
    ];

    /// Focus order (Tab): the source beside the code.
    pub const FOCUS: [Pane; PANES] = [
        Pane::Source,
        Pane::Code,
        Pane::Waves,
        Pane::Lanes,
        Pane::Registers,
        Pane::Watch,
        Pane::Locals,
        Pane::Memory,
        Pane::Breakpoints,
        Pane::Console,
    ];

    /// The pane's name, as its title and the tab bar show it.
    pub fn title(self) -> &'static str {
        match self {
            Pane::Code => "Code",
            Pane::Waves => "Waves",
            Pane::Lanes => "Lanes",
            Pane::Registers => "Registers",
            Pane::Memory => "Memory",
            Pane::Breakpoints => "Breakpoints",
            Pane::Console => "Console",
            Pane::Source => "Source",
            Pane::Watch => "Watch",
            Pane::Locals => "Locals",
        }
    }

    /// A short title, for a narrow tab bar.
    pub fn short_title(self) -> &'static str {
        match self {
            Pane::Code => "Code",
            Pane::Waves => "Wave",
            Pane::Lanes => "Lane",
            Pane::Registers => "Reg",
            Pane::Memory => "Mem",
            Pane::Breakpoints => "Bkpt",
            Pane::Console => "Cons",
            Pane::Source => "Src",
            Pane::Watch => "Wtch",
            Pane::Locals => "Locl",
        }
    }

    /// Position in [`Pane::ALL`] (the digit key is one more, `0` for the tenth).
    pub fn index(self) -> usize {
        Pane::ALL.iter().position(|p| *p == self).unwrap_or(0)
    }

    /// Its digit key.
    pub fn digit(self) -> usize {
        (self.index() + 1) % 10
    }

    /// The pane `by` places on in focus order among `shown` (wrapping around). A pane not
    /// shown moves to the first one shown.
    pub(crate) fn step(self, by: isize, shown: &[Pane]) -> Pane {
        let order: Vec<Pane> = Pane::FOCUS
            .iter()
            .copied()
            .filter(|p| shown.contains(p))
            .collect();
        let Some(at) = order.iter().position(|p| *p == self) else {
            return order.first().copied().unwrap_or(self);
        };
        let n = order.len() as isize;
        order[(at as isize + by).rem_euclid(n) as usize]
    }
}

/// Which code views show (`v` cycles them, as gdb's `layout asm`, `layout split` and
/// `layout src`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CodeLayout {
    /// The disassembly alone (`layout asm`; the default without a source).
    Asm,
    /// The source above the disassembly.
    #[default]
    Split,
    /// The source alone (`layout src`).
    Src,
}

impl CodeLayout {
    /// The layout `v` goes to: split, then src, then asm, then split again.
    pub fn next(self) -> CodeLayout {
        match self {
            CodeLayout::Asm => CodeLayout::Split,
            CodeLayout::Split => CodeLayout::Src,
            CodeLayout::Src => CodeLayout::Asm,
        }
    }

    /// What it shows, in the words the help and the `v` message use.
    pub fn what(self) -> &'static str {
        match self {
            CodeLayout::Asm => "the disassembly alone",
            CodeLayout::Split => "the source above the disassembly",
            CodeLayout::Src => "the source alone",
        }
    }

    /// The cycle `v` goes through, from the default with a source: the help's words.
    pub fn cycle_text() -> String {
        let mut at = CodeLayout::Split;
        let mut names = Vec::new();
        for _ in 0..3 {
            names.push(at.name());
            at = at.next();
        }
        format!(
            "code views: {}, then {} again",
            names.join(" > "),
            at.name()
        )
    }

    /// Its name, as gdb's `layout` names it.
    pub fn name(self) -> &'static str {
        match self {
            CodeLayout::Asm => "asm",
            CodeLayout::Split => "split",
            CodeLayout::Src => "src",
        }
    }

    /// Whether the pane shows in this layout (every pane but the two code views always
    /// does).
    pub fn shows(self, pane: Pane) -> bool {
        match pane {
            Pane::Code => self != CodeLayout::Src,
            Pane::Source => self != CodeLayout::Asm,
            _ => true,
        }
    }

    /// The panes shown, in [`Pane::ALL`] order.
    pub fn panes(self) -> Vec<Pane> {
        Pane::ALL.into_iter().filter(|p| self.shows(*p)).collect()
    }
}
