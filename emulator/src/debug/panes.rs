//! How the front ends' panes show values, kept in the session so a saved session opens as
//! it was left: the number format of the lane grid, the Registers pane and the Memory
//! pane, the Memory pane's unit, and the split sizes. The engine only stores these (set
//! by `set format`, `set memory-unit` and `set split`, so keys that change them are
//! recorded like every other command); the front ends draw by them.

use serde::{Deserialize, Serialize};

/// How a 32-bit value is written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum NumberFormat {
    /// `0x0000002a`.
    #[default]
    Hex,
    /// `42`.
    Unsigned,
    /// `-1` for `0xffffffff`.
    Signed,
    /// The bits as an IEEE 754 single (`1.5`, `-inf`, `nan`).
    F32,
}

impl NumberFormat {
    /// Every format, in the order a key cycles through them.
    pub const ALL: [NumberFormat; 4] = [
        NumberFormat::Hex,
        NumberFormat::Unsigned,
        NumberFormat::Signed,
        NumberFormat::F32,
    ];

    /// The word the command language uses (`set format lanes f32`).
    pub fn word(self) -> &'static str {
        match self {
            NumberFormat::Hex => "hex",
            NumberFormat::Unsigned => "unsigned",
            NumberFormat::Signed => "signed",
            NumberFormat::F32 => "f32",
        }
    }

    /// The format a word names (also gdb's letters `x`, `u`, `d`, `f`).
    pub fn parse(word: &str) -> Option<NumberFormat> {
        match word {
            "hex" | "x" => Some(NumberFormat::Hex),
            "unsigned" | "u" => Some(NumberFormat::Unsigned),
            "signed" | "d" => Some(NumberFormat::Signed),
            "f32" | "float" | "f" => Some(NumberFormat::F32),
            _ => None,
        }
    }

    /// gdb's format letter, as [`crate::debug::view::format_value`] takes it.
    pub fn letter(self) -> char {
        match self {
            NumberFormat::Hex => 'x',
            NumberFormat::Unsigned => 'u',
            NumberFormat::Signed => 'd',
            NumberFormat::F32 => 'f',
        }
    }

    /// The next format in [`NumberFormat::ALL`], wrapping.
    pub fn next(self) -> NumberFormat {
        let i = NumberFormat::ALL
            .iter()
            .position(|f| *f == self)
            .unwrap_or(0);
        NumberFormat::ALL[(i + 1) % NumberFormat::ALL.len()]
    }
}

/// Which pane a `set format` applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormatTarget {
    /// The lane grid (`set format lanes`).
    Lanes,
    /// The Registers pane (`set format registers`).
    Registers,
    /// The Memory pane (`set format memory`).
    Memory,
}

impl FormatTarget {
    /// Every pane with a format.
    pub const ALL: [FormatTarget; 3] = [
        FormatTarget::Lanes,
        FormatTarget::Registers,
        FormatTarget::Memory,
    ];

    /// The word the command language uses.
    pub fn word(self) -> &'static str {
        match self {
            FormatTarget::Lanes => "lanes",
            FormatTarget::Registers => "registers",
            FormatTarget::Memory => "memory",
        }
    }

    /// The target a word names.
    pub fn parse(word: &str) -> Option<FormatTarget> {
        match word {
            "lanes" => Some(FormatTarget::Lanes),
            "registers" => Some(FormatTarget::Registers),
            "memory" => Some(FormatTarget::Memory),
            _ => None,
        }
    }
}

/// The Memory pane's unit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum MemoryUnit {
    /// One byte per cell, with an ASCII column.
    #[default]
    Bytes,
    /// One little-endian 32-bit word per cell.
    Words,
}

impl MemoryUnit {
    /// Both units.
    pub const ALL: [MemoryUnit; 2] = [MemoryUnit::Bytes, MemoryUnit::Words];

    /// The word the command language uses (`set memory-unit words`).
    pub fn word(self) -> &'static str {
        match self {
            MemoryUnit::Bytes => "bytes",
            MemoryUnit::Words => "words",
        }
    }

    /// The unit a word names.
    pub fn parse(word: &str) -> Option<MemoryUnit> {
        match word {
            "bytes" | "b" => Some(MemoryUnit::Bytes),
            "words" | "w" => Some(MemoryUnit::Words),
            _ => None,
        }
    }
}

/// The split sizes a front end lets the user change (`set split`), each a share of the
/// screen in percent; `None` keeps the front end's default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Splits {
    /// The left column's share of the width (the code views, waves, breakpoints and
    /// console; the lane grid, registers and memory take the rest).
    pub left: Option<u16>,
    /// The source's share of the code views' height when both show (`layout split`).
    pub source: Option<u16>,
    /// The console's share of the left column's height.
    pub console: Option<u16>,
    /// The lane grid's share of the right column's height.
    pub lanes: Option<u16>,
}

/// Which split a `set split` changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitTarget {
    /// The left column's width ([`Splits::left`]).
    Left,
    /// The source above the disassembly ([`Splits::source`]).
    Source,
    /// The console's height ([`Splits::console`]).
    Console,
    /// The lane grid's height ([`Splits::lanes`]).
    Lanes,
}

impl SplitTarget {
    /// Every split, in the order the usage lists them.
    pub const ALL: [SplitTarget; 4] = [
        SplitTarget::Left,
        SplitTarget::Source,
        SplitTarget::Console,
        SplitTarget::Lanes,
    ];

    /// The word the command language uses (`set split lanes 40`).
    pub fn word(self) -> &'static str {
        match self {
            SplitTarget::Left => "left",
            SplitTarget::Source => "source",
            SplitTarget::Console => "console",
            SplitTarget::Lanes => "lanes",
        }
    }

    /// The split a word names.
    pub fn parse(word: &str) -> Option<SplitTarget> {
        SplitTarget::ALL.into_iter().find(|t| t.word() == word)
    }
}

impl Splits {
    /// The smallest and largest share `set split` takes, in percent: every pane keeps
    /// some room.
    pub const RANGE: std::ops::RangeInclusive<u16> = 10..=90;

    /// One split's share (`None`: the front end's default).
    pub fn get(&self, target: SplitTarget) -> Option<u16> {
        match target {
            SplitTarget::Left => self.left,
            SplitTarget::Source => self.source,
            SplitTarget::Console => self.console,
            SplitTarget::Lanes => self.lanes,
        }
    }

    /// Sets one split's share (`None`: back to the default).
    pub fn set(&mut self, target: SplitTarget, percent: Option<u16>) {
        let slot = match target {
            SplitTarget::Left => &mut self.left,
            SplitTarget::Source => &mut self.source,
            SplitTarget::Console => &mut self.console,
            SplitTarget::Lanes => &mut self.lanes,
        };
        *slot = percent;
    }
}

/// Everything a session keeps of how the panes show values.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct PaneSettings {
    /// The lane grid's number format.
    pub lanes: NumberFormat,
    /// The Registers pane's number format.
    pub registers: NumberFormat,
    /// The Memory pane's number format.
    pub memory: NumberFormat,
    /// The Memory pane's unit.
    pub memory_unit: MemoryUnit,
    /// The split sizes.
    pub splits: Splits,
}

impl PaneSettings {
    /// The format of one pane.
    pub fn format(&self, target: FormatTarget) -> NumberFormat {
        match target {
            FormatTarget::Lanes => self.lanes,
            FormatTarget::Registers => self.registers,
            FormatTarget::Memory => self.memory,
        }
    }

    /// Sets the format of one pane.
    pub fn set_format(&mut self, target: FormatTarget, format: NumberFormat) {
        match target {
            FormatTarget::Lanes => self.lanes = format,
            FormatTarget::Registers => self.registers = format,
            FormatTarget::Memory => self.memory = format,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip() {
        for f in NumberFormat::ALL {
            assert_eq!(NumberFormat::parse(f.word()), Some(f));
            assert_eq!(NumberFormat::parse(&f.letter().to_string()), Some(f));
        }
        for t in [
            FormatTarget::Lanes,
            FormatTarget::Registers,
            FormatTarget::Memory,
        ] {
            assert_eq!(FormatTarget::parse(t.word()), Some(t));
        }
        for u in [MemoryUnit::Bytes, MemoryUnit::Words] {
            assert_eq!(MemoryUnit::parse(u.word()), Some(u));
        }
        assert_eq!(NumberFormat::F32.next(), NumberFormat::Hex);
        for t in SplitTarget::ALL {
            assert_eq!(SplitTarget::parse(t.word()), Some(t));
            let mut s = Splits::default();
            s.set(t, Some(40));
            assert_eq!(s.get(t), Some(40));
        }
    }
}
