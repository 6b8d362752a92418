//! The kernel's source under the debugger: the line of a PC as stops show it, and `list`
//! (10 lines around the selected wave's PC, a line, a label or an address; again to go on,
//! `-` to go back), from the program's line table and the source text the engine holds.

use super::command::{CommandError, ListArg, Location};
use super::Engine;

/// Lines `list` shows at a time.
pub const LIST_LINES: u32 = 10;

/// Why the engine has no source text for its kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoSource {
    /// The kernel was opened from this assembled object (`.wko`): it keeps line numbers,
    /// not the text.
    Object(String),
    /// The kernel's file could not be read.
    Unreadable(String),
    /// The kernel was not opened from a file.
    NotFromFile,
}

impl std::fmt::Display for NoSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoSource::Object(_) => {
                f.write_str("no source for this kernel (opened from a .wko object)")
            }
            NoSource::Unreadable(p) => write!(f, "no source for this kernel (cannot read {p})"),
            NoSource::NotFromFile => {
                f.write_str("no source for this kernel (it was not opened from a .s file)")
            }
        }
    }
}

impl Engine {
    /// Gives the engine the kernel's source text (a front end with the text in hand: the
    /// built-in demo, a test). [`Engine::set_kernel_path`] reads it from a `.s` file.
    pub fn set_source(&mut self, name: &str, text: &str) {
        self.source = Some((name.to_string(), text.to_string()));
    }

    /// Why there is no source to show (`None` when there is); its text is the message
    /// of `list`.
    pub fn no_source(&self) -> Option<NoSource> {
        if self.source.is_some() {
            return None;
        }
        Some(match self.kernel_path() {
            Some(p) if p.ends_with(".wko") => NoSource::Object(p.to_string()),
            Some(p) => NoSource::Unreadable(p.to_string()),
            None => NoSource::NotFromFile,
        })
    }

    /// [`Engine::no_source`] as the message of `list`.
    pub fn no_source_reason(&self) -> Option<String> {
        self.no_source().map(|r| r.to_string())
    }

    /// The source line of the instruction at `pc` as a stop shows it, gdb style:
    /// `  42\t    ld.shared.b32 v5, v2, 128   ; comment`; where the kernel has a
    /// higher-level line table, that line instead (`src/k.cl:11` and its text, see
    /// [`Engine::high_level_line_at`]). `None` without source or line.
    pub fn source_line_at(&self, pc: u64) -> Option<String> {
        if let Some(hl) = self.high_level_line_at(pc) {
            return Some(hl);
        }
        let line = self.machine().program().line_at(pc)?;
        let text = self.source_text_line(line)?;
        Some(format!("{line:>4}\t{text}"))
    }

    /// Line `line` (1-based) of the source, without its line end.
    pub(super) fn source_text_line(&self, line: u32) -> Option<&str> {
        let (_, text) = self.source.as_ref()?;
        let i = (line as usize).checked_sub(1)?;
        text.lines().nth(i).map(str::trim_end)
    }

    /// The source line of the selected wave's PC: its own, or for a PC without one (past
    /// the last instruction, after `end`) the line of the nearest instruction before it.
    fn pc_line(&self) -> Option<u32> {
        let pc = self.machine().waves.get(self.selected_wave)?.pc;
        let p = self.machine().program();
        p.line_at(pc).or_else(|| {
            p.lines
                .iter()
                .take_while(|(a, _)| *a <= pc)
                .last()
                .map(|(_, l)| *l)
        })
    }

    /// `list [ARG]`: the source lines it shows, numbered, `=>` at the selected wave's PC,
    /// `B` at lines with an enabled breakpoint.
    pub(super) fn list(&mut self, arg: Option<&ListArg>) -> Result<String, CommandError> {
        let err = |m: String| CommandError::refused("list", m);
        if let Some((file, first, last)) = self.high_level_list_range(arg)? {
            return self.list_line_file(file, first, last).map_err(err);
        }
        self.line_sources.list_file = None;
        let Some((name, text)) = self.source.clone() else {
            return Err(err(self.no_source_reason().unwrap_or_default()));
        };
        let total = text.lines().count() as u32;
        let short = std::path::Path::new(&name)
            .file_name()
            .map_or(name.clone(), |f| f.to_string_lossy().into_owned());
        let centred = |line: u32| {
            let first = line.saturating_sub(LIST_LINES / 2).max(1);
            (first, first + LIST_LINES - 1)
        };
        let around_pc = || centred(self.pc_line().unwrap_or(1));
        // The line of a location in the kernel's source, checked against its length.
        let line_of = |location: &Location| -> Result<u32, CommandError> {
            let line = match location {
                Location::Line { file, line } => {
                    self.check_source_file(file.as_deref())
                        .map_err(|e| err(e.to_string()))?;
                    match u32::try_from(*line) {
                        Ok(l) if l >= 1 && l <= total => l,
                        _ => {
                            return Err(err(format!(
                                "line {line} is out of range; {short} has {}",
                                super::view::count(total as u64, "line")
                            )))
                        }
                    }
                }
                _ => {
                    let addr = self
                        .resolve_location(location)
                        .map_err(|e| err(e.to_string()))?;
                    self.machine().program().line_at(addr).ok_or_else(|| {
                        err(format!(
                            "no source line for the instruction at {}",
                            super::view::addr_text(addr)
                        ))
                    })?
                }
            };
            if line == 0 || line > total {
                return Err(err(format!(
                    "line {line} is out of range; {short} has {}",
                    super::view::count(total as u64, "line")
                )));
            }
            Ok(line)
        };
        let (first, last) = match arg {
            None => match self.list_last {
                Some((_, last)) => (last + 1, last + LIST_LINES),
                None => around_pc(),
            },
            Some(ListArg::Before) => {
                let before = self.list_last.map_or_else(|| around_pc().0, |(f, _)| f);
                if before <= 1 {
                    return Err(err(format!("Already at the start of {short}.")));
                }
                let last = before - 1;
                (last.saturating_sub(LIST_LINES - 1).max(1), last)
            }
            Some(ListArg::Around(location)) => centred(line_of(location)?),
            Some(ListArg::Range(first, last)) => {
                let first = first.as_ref().map(&line_of).transpose()?;
                // As gdb: a LAST past the end lists to the end.
                let last = last
                    .as_ref()
                    .map(|l| match l {
                        Location::Line { file, line } => line_of(&Location::Line {
                            file: file.clone(),
                            line: (*line).min(total as u64),
                        }),
                        l => line_of(l),
                    })
                    .transpose()?;
                match (first, last) {
                    (Some(a), Some(b)) if b < a => {
                        return Err(err(format!(
                            "Second line number {b} is before the first, {a}."
                        )))
                    }
                    (Some(a), Some(b)) => (a, b),
                    (Some(a), None) => (a, a + LIST_LINES - 1),
                    (None, Some(b)) => (b.saturating_sub(LIST_LINES - 1).max(1), b),
                    (None, None) => around_pc(),
                }
            }
        };
        if first > total {
            return Err(err(format!(
                "Line number {first} out of range; {short} has {}.",
                super::view::count(total as u64, "line")
            )));
        }
        let last = last.min(total);
        self.list_last = Some((first, last));
        let pc_line = self
            .machine()
            .waves
            .get(self.selected_wave)
            .and_then(|w| self.machine().program().line_at(w.pc));
        let p = self.machine().program();
        let bp_lines: Vec<u32> = self
            .breakpoints()
            .iter()
            .filter(|b| b.enabled)
            .flat_map(|b| &b.addrs)
            .filter_map(|&a| p.line_at(a))
            .collect();
        Ok(listing(&text, (first, last), pc_line, &bp_lines))
    }
}

/// Lines `first..=last` of `text` as `list` prints them: `=>` at line `here`, `B` at the
/// lines in `breakpoints`, then the number and the line.
pub(super) fn listing(
    text: &str,
    (first, last): (u32, u32),
    here: Option<u32>,
    breakpoints: &[u32],
) -> String {
    let mut s = String::new();
    for (i, l) in text.lines().enumerate().skip(first as usize - 1) {
        let n = i as u32 + 1;
        if n > last {
            break;
        }
        s.push_str(&format!(
            "{}{}{n:>4}\t{}\n",
            if Some(n) == here { "=>" } else { "  " },
            if breakpoints.contains(&n) { "B" } else { " " },
            l.trim_end()
        ));
    }
    s
}
