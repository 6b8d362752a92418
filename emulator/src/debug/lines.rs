//! Source-level lines of a kernel compiled from a higher-level language (`.file N`,
//! `.loc`; docs/source-level.md): the higher-level text stops and `list` show, the
//! addresses `break FILE:LINE` and `advance FILE:LINE` resolve to, `info line`,
//! `info source`, and line stepping (`step`, `next`, `until`, `reverse-step`,
//! `reverse-next`). A kernel without a line table keeps the assembly's own lines.

use std::path::Path;

use super::command::{CommandError, ListArg, Location};
use super::source::LIST_LINES;
use super::stop::{StopEvent, StopReason};
use super::{view, Engine, EngineError};
use crate::program::{LineRow, Program};

/// The line-table row of the instruction at `pc`, when it has a line (not line 0): the
/// one lookup every higher-level line the debugger and `wavedbg check` name goes through.
fn line_row(p: &Program, pc: u64) -> Option<LineRow> {
    p.source_info
        .row_at(pc, p.code_bytes())
        .filter(|r| r.line != 0)
        .copied()
}

/// The higher-level line of an instruction, as findings, `last-write` and `check --json`
/// name it next to the assembly's own line: the file as `.file` wrote it, the line and
/// the column (0 when unknown).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SourcePlace {
    /// The file's path as `.file` wrote it.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column; 0 when unknown.
    pub col: u32,
}

impl SourcePlace {
    /// The higher-level line of the instruction at `pc`; `None` for a kernel without a
    /// line table and for code of no line.
    pub fn at(p: &Program, pc: u64) -> Option<SourcePlace> {
        let row = line_row(p, pc)?;
        let file = p
            .source_info
            .file(row.file)
            .map_or_else(|| format!("file {}", row.file), |f| f.path.clone());
        Some(SourcePlace {
            file,
            line: row.line,
            col: row.column,
        })
    }
}

impl std::fmt::Display for SourcePlace {
    /// `FILE:LINE`, as stops name a higher-level line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// A numbered source file of the line table and its text as the engine read it.
#[derive(Debug, Clone, Default)]
pub(super) struct LineSources {
    /// Per file of the program's line table: number, path as written, and its text or
    /// why it could not be read (a note, never an error).
    files: Vec<(u32, String, Result<String, String>)>,
    /// The file the last `list` showed, when it was a higher-level one.
    pub(super) list_file: Option<u32>,
}

/// The components of a path as a location names it (`.` and empty ones dropped; `/`
/// and `\\` both separate), compared whole: `rc/a.cl` is not a suffix of `src/a.cl`.
fn components(p: &str) -> Vec<&str> {
    p.split(['/', '\\'])
        .filter(|c| !c.is_empty() && *c != ".")
        .collect()
}

/// The last component of a path, as confirmations name a file.
fn last_component(p: &str) -> &str {
    Path::new(p)
        .file_name()
        .and_then(|f| f.to_str())
        .unwrap_or(p)
}

impl Engine {
    /// Reads the higher-level source files of the line table, relative to the kernel
    /// file's directory (the current one without a path).
    pub(super) fn load_line_sources(&mut self, kernel_path: Option<&str>) {
        let files = self
            .machine()
            .program()
            .source_info
            .files
            .iter()
            .map(|f| {
                let full = f.beside(kernel_path.map(Path::new));
                let text = crate::files::read_text(&full, crate::files::KERNEL_SOURCE)
                    .map_err(|e| e.to_string());
                (f.number, f.path.clone(), text)
            })
            .collect();
        self.line_sources = LineSources {
            files,
            list_file: None,
        };
    }

    /// Whether the kernel has a line table of a higher-level language (`.loc`), finer
    /// than its instructions: the one place `step` and `next` ask how far a "line" goes.
    /// Without one, every assembly line is one instruction and a line step is `stepi`.
    pub fn has_line_table(&self) -> bool {
        self.machine().program().source_info.has_lines()
    }

    /// The line-table row of the instruction at `pc`, when it has a line (not line 0).
    pub fn line_row_at(&self, pc: u64) -> Option<LineRow> {
        line_row(self.machine().program(), pc)
    }

    /// The path of a line-table file as `.file` wrote it.
    pub(super) fn line_file_path(&self, number: u32) -> String {
        self.line_sources
            .files
            .iter()
            .find(|(n, _, _)| *n == number)
            .map_or_else(|| format!("file {number}"), |(_, p, _)| p.clone())
    }

    /// A line-table file's last path component, as breakpoint confirmations name it; its
    /// path as `.file` wrote it where another file has the same last component.
    pub(super) fn line_file_display(&self, number: u32) -> String {
        let path = self.line_file_path(number);
        let short = last_component(&path);
        let shared = self
            .machine()
            .program()
            .source_info
            .files
            .iter()
            .any(|f| f.number != number && last_component(&f.path) == short);
        if shared {
            path
        } else {
            short.to_string()
        }
    }

    /// `, compiled from F1, F2` naming the files of the line table, for an error about a
    /// file the kernel does not have; empty without a line table.
    pub(super) fn compiled_from_text(&self) -> String {
        let files = &self.machine().program().source_info.files;
        if !self.has_line_table() || files.is_empty() {
            return String::new();
        }
        let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        format!(", compiled from {}", paths.join(", "))
    }

    /// The text of a higher-level file, or why there is none.
    pub(super) fn line_file_text(&self, number: u32) -> Result<&str, String> {
        match self
            .line_sources
            .files
            .iter()
            .find(|(n, _, _)| *n == number)
        {
            Some((_, _, Ok(t))) => Ok(t),
            Some((_, _, Err(e))) => Err(e.clone()),
            None => Err(format!("no source file number {number}")),
        }
    }

    /// The higher-level source of the instruction at `pc` as a stop shows it, gdb style:
    /// `src/k.cl:11` and the line's text (or a note that the file cannot be read).
    /// `None` where the code has no higher-level line.
    pub fn high_level_line_at(&self, pc: u64) -> Option<String> {
        let row = self.line_row_at(pc)?;
        let path = self.line_file_path(row.file);
        let line = row.line;
        Some(match self.line_file_text(row.file) {
            Ok(text) => match text.lines().nth(line as usize - 1) {
                Some(t) => format!("{path}:{line}\n{line:>4}\t{}", t.trim_end()),
                None => format!("{path}:{line} (the file has fewer lines)"),
            },
            Err(e) => format!("{path}:{line} (no source text: {e})"),
        })
    }

    /// The higher-level files `file` names, as gdb matches a location's file: by whole
    /// trailing path components (`a.cl` names `src/a.cl` and `lib/a.cl`, `lib/a.cl` only
    /// the second, `rc/a.cl` neither), against the path `.file` wrote or that path beside
    /// the kernel's file; an absolute path names the file at that place. Empty without a
    /// line table.
    pub fn line_files_named(&self, file: &str) -> Vec<u32> {
        if !self.has_line_table() {
            return Vec::new();
        }
        let wanted = components(file);
        if wanted.is_empty() {
            return Vec::new();
        }
        let kernel = self.kernel_path().map(Path::new);
        let absolute = Path::new(file).is_absolute();
        let files = &self.machine().program().source_info.files;
        let by_components: Vec<u32> = files
            .iter()
            .filter(|s| {
                let full = s.beside(kernel);
                let full = full.to_string_lossy();
                let ends = |p: &str| components(p).ends_with(&wanted);
                if absolute {
                    Path::new(&*full).is_absolute() && components(&full) == wanted
                } else {
                    ends(&s.path) || ends(&full)
                }
            })
            .map(|s| s.number)
            .collect();
        if !by_components.is_empty() || !absolute {
            return by_components;
        }
        // An absolute path where the kernel was opened by a relative one (or through a
        // symbolic link): the same file on disk.
        let Ok(wanted) = std::fs::canonicalize(file) else {
            return Vec::new();
        };
        files
            .iter()
            .filter(|s| std::fs::canonicalize(s.beside(kernel)).is_ok_and(|p| p == wanted))
            .map(|s| s.number)
            .collect()
    }

    /// The one higher-level file `file` names (see [`Engine::line_files_named`]), or with
    /// no name the default file: the one of the selected wave's line, else the one `list`
    /// showed last, else the first. `Ok(None)` without a line table or when `file` names
    /// none; an error naming them when it names several (a shared base name).
    pub(super) fn line_file_named(&self, file: Option<&str>) -> Result<Option<u32>, EngineError> {
        if !self.has_line_table() {
            return Ok(None);
        }
        match file {
            Some(f) => match self.line_files_named(f).as_slice() {
                [] => Ok(None),
                [n] => Ok(Some(*n)),
                several => Err(EngineError::AmbiguousSourceFile {
                    file: f.to_string(),
                    matches: several
                        .iter()
                        .map(|&n| self.line_file_path(n))
                        .collect::<Vec<_>>()
                        .join(" and "),
                }),
            },
            None => {
                let pc = self.machine().waves.get(self.selected_wave).map(|w| w.pc);
                Ok(pc
                    .and_then(|pc| self.line_row_at(pc))
                    .map(|r| r.file)
                    .or(self.line_sources.list_file)
                    .or_else(|| {
                        self.machine()
                            .program()
                            .source_info
                            .rows
                            .iter()
                            .find(|r| r.line != 0)
                            .map(|r| r.file)
                    }))
            }
        }
    }

    /// The higher-level files a location's file part names: every file matching `file`
    /// (a shared base name names several, as gdb sets a breakpoint in each), or the
    /// default file without one. Empty without a line table or when it names none.
    pub(super) fn line_files_of(&self, file: Option<&str>) -> Vec<u32> {
        match file {
            Some(f) => self.line_files_named(f),
            None => self
                .line_file_named(None)
                .ok()
                .flatten()
                .into_iter()
                .collect(),
        }
    }

    /// The addresses a breakpoint on a higher-level line goes to: the first statement of
    /// each stretch of code of the line (several, as gdb's multiple locations).
    pub(super) fn line_addresses(&self, file: u32, line: u64) -> Result<Vec<u64>, EngineError> {
        let p = self.machine().program();
        let addrs: Vec<u64> = u32::try_from(line)
            .map(|l| p.source_info.line_ranges(file, l, p.code_bytes()))
            .unwrap_or_default()
            .iter()
            .filter_map(|r| r.stmt)
            .collect();
        if addrs.is_empty() {
            return Err(EngineError::NoCodeOnLine {
                line,
                file: self.line_file_path(file),
            });
        }
        Ok(addrs)
    }

    /// Whether a line step that started on `from` (file, line) ends at `pc`: the first
    /// instruction of a statement of another line (code of no line is stepped through).
    pub(super) fn is_new_line(&self, pc: u64, from: (u32, u32)) -> bool {
        self.line_row_at(pc)
            .is_some_and(|r| r.addr == pc && r.is_stmt && (r.file, r.line) != from)
    }

    /// The (file, line) of the selected wave's PC; (0, 0) where it has none, which no
    /// row has, so the step ends at the first statement.
    fn selected_line(&self) -> (u32, u32) {
        self.machine()
            .waves
            .get(self.selected_wave)
            .and_then(|w| self.line_row_at(w.pc))
            .map_or((0, 0), |r| (r.file, r.line))
    }

    /// gdb's `step N` and `next N` (a wave has no calls, so the two are one): N source
    /// lines of the selected wave (scheduler locking as it says). With a line table a
    /// line ends at the first instruction of a statement of another line; without one a
    /// line is an instruction, so this is `stepi N`.
    pub fn step_lines(&mut self, n: u64) -> StopEvent {
        if !self.has_line_table() {
            return self.step(n);
        }
        let mut stop = self.run_to_line(self.selected_line(), None);
        for _ in 1..n {
            if stop.reason != StopReason::Step {
                break;
            }
            stop = self.run_to_line(self.selected_line(), None);
        }
        stop
    }

    /// gdb's `until` without an argument: as `next`, but never stops at a line before the
    /// current PC (it leaves a loop that jumps back). Without a line table, runs until
    /// the PC is past the current instruction.
    pub fn until_next_line(&mut self) -> StopEvent {
        if !self.has_line_table() {
            return self.until_past();
        }
        let pc = self
            .machine()
            .waves
            .get(self.selected_wave)
            .map_or(0, |w| w.pc);
        let from = self.selected_line();
        self.run_to_line(from, Some(pc))
    }

    /// `reverse-step N` / `reverse-next N`: back N source lines of the selected wave in
    /// the recorded history, to the first instruction of the statement before; without a
    /// line table, `reverse-stepi N`. One backward search, marking the statement starts
    /// of every line: stepping back an instruction at a time, the wave would stop at the
    /// first of those of a line other than the one it came from, N times over; out of
    /// lines, it goes on back to the start of the record, as `reverse-stepi` does.
    pub fn reverse_step_lines(&mut self, n: u64) -> StopEvent {
        if !self.has_line_table() {
            return self.reverse_step(n);
        }
        let w = self.selected_wave;
        let Some((id, executed)) = self.machine().waves.get(w).map(|x| (x.id, x.executed)) else {
            // No wave, or one with no history: `reverse-stepi` says which.
            return self.reverse_step(1);
        };
        if executed == 0 {
            return self.reverse_step(1);
        }
        let starts = self.statement_starts();
        let mut lines = n.max(1);
        let mut from = self.selected_line();
        let now = self.machine().stats.wave_instructions;
        let found = self.last_execution_among(id, &starts, now, |x| {
            let Some(r) = self.line_row_at(x.pc()) else {
                return false;
            };
            if (r.file, r.line) == from {
                return false;
            }
            lines -= 1;
            from = (r.file, r.line);
            lines == 0
        });
        match found {
            Ok(Some(x)) => self.travel_to(x, StopReason::Step),
            // Past the wave's first instruction: `reverse-stepi` that far stops there.
            Ok(None) => self.reverse_step(executed + 1),
            Err(_) => self.finish(self.event(StopReason::Interrupted, Some(w))),
        }
    }

    /// The first statement of each stretch of code of every higher-level line, in
    /// address order: where a reverse line step may stop.
    fn statement_starts(&self) -> Vec<u64> {
        let p = self.machine().program();
        let info = &p.source_info;
        let mut lines: Vec<(u32, u32)> = info
            .rows
            .iter()
            .filter(|r| r.line != 0)
            .map(|r| (r.file, r.line))
            .collect();
        lines.sort_unstable();
        lines.dedup();
        let mut starts: Vec<u64> = lines
            .into_iter()
            .flat_map(|(f, l)| info.line_ranges(f, l, p.code_bytes()))
            .filter_map(|r| r.stmt)
            .collect();
        starts.sort_unstable();
        starts
    }

    /// `info line [FILE:LINE | *ADDR]` for a kernel with a line table: the code of a
    /// higher-level line (each stretch), or the line of an address, in gdb's words.
    pub(super) fn info_line_text(&self, file: u32, line: u64) -> String {
        let p = self.machine().program();
        let path = self.line_file_path(file);
        let ranges = u32::try_from(line)
            .map(|l| p.source_info.line_ranges(file, l, p.code_bytes()))
            .unwrap_or_default();
        if ranges.is_empty() {
            return format!("Line {line} of \"{path}\" has no code.\n");
        }
        let m = self.machine();
        ranges
            .iter()
            .map(|r| {
                format!(
                    "Line {line} of \"{path}\" starts at address {} and ends at {}.{}\n",
                    view::pc_text(m, r.start),
                    view::pc_text(m, r.end),
                    match r.stmt {
                        Some(s) if s != r.start =>
                            format!(" Its statement starts at {}.", view::pc_text(m, s)),
                        Some(_) => String::new(),
                        None => " It has no statement (is_stmt 0).".to_string(),
                    }
                )
            })
            .collect()
    }

    /// `info line [LOCATION]`: a higher-level line's code, or the line of an address
    /// (the selected wave's PC without a location); the assembly's own line where the
    /// kernel has no line table there.
    pub(super) fn info_line(&self, location: Option<&Location>) -> Result<String, CommandError> {
        let err = |e: EngineError| CommandError::engine("info", e);
        if let Some(Location::Line { file, line }) = location {
            let files = self.line_files_of(file.as_deref());
            if !files.is_empty() {
                return Ok(files
                    .into_iter()
                    .map(|n| self.info_line_text(n, *line))
                    .collect());
            }
        }
        // An address past the code has no line, as gdb says, and that is why.
        let value = match location {
            Some(Location::Address(a)) => Some(*a),
            Some(Location::Expr(e)) => Some(self.location_value(e).map_err(err)?),
            _ => None,
        };
        let end = self.machine().program().code_bytes();
        if let Some(a) = value.filter(|&a| a >= end) {
            return Ok(format!(
                "No line number information available for address {a:#06x}: it is outside the kernel's code (0x0000-{:#06x})\n",
                end.saturating_sub(1)
            ));
        }
        let addr = match location.map(|l| self.resolve_location(l)) {
            Some(Ok(a)) => a,
            // Inside the code but not where an instruction starts (the second word of a
            // 64-bit instruction, or not word-aligned): the instruction it is part of,
            // and that instruction's line.
            Some(Err(EngineError::NotAnInstruction(a))) => {
                let m = self.machine();
                let Some(start) = self.instruction_containing(a) else {
                    return Err(err(EngineError::NotAnInstruction(a)));
                };
                return Ok(format!(
                    "Address {a:#06x} is inside the instruction at {} ({}), not at its start.\n{}",
                    view::pc_text(m, start),
                    view::instr_text(m, start),
                    self.info_line_at(start)
                ));
            }
            Some(Err(e)) => return Err(err(e)),
            None => self
                .machine()
                .waves
                .get(self.selected_wave)
                .map_or(0, |w| w.pc),
        };
        Ok(self.info_line_at(addr))
    }

    /// The start of the instruction whose bytes hold `addr` (`None` outside the code or
    /// in a word that is no instruction's).
    fn instruction_containing(&self, addr: u64) -> Option<u64> {
        let code = self.machine().code();
        let mut word = usize::try_from(addr / 4).ok()?;
        loop {
            match code.get(word)? {
                crate::code::CodeWord::Instr(_) => return Some(word as u64 * 4),
                crate::code::CodeWord::Inside => word = word.checked_sub(1)?,
                crate::code::CodeWord::Illegal(_) => return None,
            }
        }
    }

    /// The line of the instruction at `addr`, in gdb's words.
    pub(super) fn info_line_at(&self, addr: u64) -> String {
        let m = self.machine();
        let p = m.program();
        match self.line_row_at(addr) {
            Some(r) => {
                let range = p
                    .source_info
                    .line_ranges(r.file, r.line, p.code_bytes())
                    .into_iter()
                    .find(|s| s.start <= addr && addr < s.end);
                let (start, end) = range.map_or((r.addr, r.addr), |s| (s.start, s.end));
                format!(
                    "Line {} of \"{}\" starts at address {} and ends at {}.\n",
                    r.line,
                    self.line_file_path(r.file),
                    view::pc_text(m, start),
                    view::pc_text(m, end)
                )
            }
            None => match (p.line_at(addr), self.source.as_ref()) {
                (Some(l), Some((name, _))) => format!(
                    "Line {l} of \"{}\" is at address {}.\n",
                    last_component(name),
                    view::pc_text(m, addr)
                ),
                _ => format!(
                    "No line number information available for address {}\n",
                    view::pc_text(m, addr)
                ),
            },
        }
    }

    /// `info source`: the current source file and what the kernel's debug information
    /// holds, in gdb's words.
    pub(super) fn info_source_text(&self) -> String {
        let mut s = String::new();
        let info = &self.machine().program().source_info;
        if let Ok(Some(n)) = self.line_file_named(None) {
            let path = self.line_file_path(n);
            s.push_str(&format!("Current source file is {path}\n"));
            match self.line_file_text(n) {
                Ok(t) => s.push_str(&format!(
                    "Contains {}.\n",
                    super::view::count(t.lines().count() as u64, "line")
                )),
                Err(e) => s.push_str(&format!("Its text cannot be read: {e}\n")),
            }
            s.push_str(&format!(
                "Compiled to {} with a line table of {} and {}.\n",
                self.kernel_path().unwrap_or("the kernel"),
                super::view::count(info.rows.len() as u64, "row"),
                super::view::count(info.vars.len() as u64, "variable")
            ));
            for (num, path, text) in &self.line_sources.files {
                s.push_str(&format!(
                    "  file {num}: {path}{}\n",
                    if text.is_ok() { "" } else { " (unreadable)" }
                ));
            }
            return s;
        }
        match self.source.as_ref() {
            Some((name, text)) => {
                s.push_str(&format!("Current source file is {name}\n"));
                s.push_str(&format!(
                    "Contains {}.\n",
                    super::view::count(text.lines().count() as u64, "line")
                ));
                s.push_str(
                    "Source language is assembly (no line table of a higher-level language).\n",
                );
            }
            None => s.push_str("No current source file.\n"),
        }
        s
    }

    /// What `list ARG` shows of a higher-level file, where the kernel has a line table
    /// and ARG leads to one: its number and the lines `first..=last`. `None` lists the
    /// assembly as before (no line table, a location in code of no line, `FILE:N` of
    /// the `.s`, or going on from a listing of the `.s`).
    pub(super) fn high_level_list_range(
        &self,
        arg: Option<&ListArg>,
    ) -> Result<Option<(u32, u32, u32)>, CommandError> {
        if !self.has_line_table() {
            return Ok(None);
        }
        let err = |m: String| CommandError::refused("list", m);
        let centred = |file: u32, line: u32| {
            let first = line.saturating_sub(LIST_LINES / 2).max(1);
            (file, first, first + LIST_LINES - 1)
        };
        let here = self
            .machine()
            .waves
            .get(self.selected_wave)
            .and_then(|w| self.line_row_at(w.pc))
            .map(|r| centred(r.file, r.line));
        let shown = self.list_last.map(|l| (l, self.line_sources.list_file));
        Ok(match arg {
            None => match shown {
                Some(((_, last), Some(f))) => Some((f, last + 1, last + LIST_LINES)),
                Some((_, None)) => None,
                None => here,
            },
            Some(ListArg::Before) => {
                let (file, before) = match shown {
                    Some(((first, _), Some(f))) => (f, first),
                    Some((_, None)) => return Ok(None),
                    None => match here {
                        Some((f, first, _)) => (f, first),
                        None => return Ok(None),
                    },
                };
                if before <= 1 {
                    return Err(err(format!(
                        "Already at the start of {}.",
                        self.line_file_path(file)
                    )));
                }
                let last = before - 1;
                Some((file, last.saturating_sub(LIST_LINES - 1).max(1), last))
            }
            Some(ListArg::Around(location)) => self
                .high_level_line_of(location, false)?
                .map(|(file, line)| centred(file, line)),
            Some(ListArg::Range(first, last)) => {
                let side = |l: &Option<Location>, clip| match l {
                    Some(l) => self.high_level_line_of(l, clip),
                    None => Ok(None),
                };
                // As gdb: a LAST past the end lists to the end.
                let (a, b) = (side(first, false)?, side(last, true)?);
                // A side naming a file the kernel does not have is refused by its name.
                for l in [first, last].into_iter().flatten() {
                    if let Location::Line { file: Some(f), .. } = l {
                        if self.line_files_named(f).is_empty() {
                            self.check_source_file(Some(f))
                                .map_err(|e| CommandError::engine("list", e))?;
                        }
                    }
                }
                // Sides the line table does not cover: the kernel's own source lists them;
                // one side in each is two files.
                match (
                    first.is_some() && a.is_none(),
                    last.is_some() && b.is_none(),
                ) {
                    (false, false) => {}
                    (true, true) => return Ok(None),
                    (true, false) | (false, true) if first.is_none() || last.is_none() => {
                        return Ok(None)
                    }
                    _ => {
                        return Err(err(
                            "the two lines are in different files (list FIRST,LAST lists one file)"
                                .to_string(),
                        ))
                    }
                }
                match (a, b) {
                    (Some((f, _)), Some((g, _))) if f != g => {
                        return Err(err(format!(
                            "the two lines are in different files: {} and {}",
                            self.line_file_path(f),
                            self.line_file_path(g)
                        )))
                    }
                    (Some((_, x)), Some((_, y))) if y < x => {
                        return Err(err(format!(
                            "Second line number {y} is before the first, {x}."
                        )))
                    }
                    (Some((f, x)), Some((_, y))) => Some((f, x, y)),
                    (Some((f, x)), None) => Some((f, x, x + LIST_LINES - 1)),
                    (None, Some((f, y))) => Some((f, y.saturating_sub(LIST_LINES - 1).max(1), y)),
                    (None, None) => here,
                }
            }
        })
    }

    /// The higher-level file and line of `location` for `list`: `FILE:LINE` (or a bare
    /// line, in the higher-level file) checked against the file's length, or the line of
    /// the instruction a label or address names; `None` where the line table does not
    /// cover it (a `.s` line, an instruction without a line). With `clip`, a line past
    /// the end is the last line.
    fn high_level_line_of(
        &self,
        location: &Location,
        clip: bool,
    ) -> Result<Option<(u32, u32)>, CommandError> {
        let err = |m: String| CommandError::refused("list", m);
        if let Location::Line { file, line } = location {
            let Some(n) = self
                .line_file_named(file.as_deref())
                .map_err(|e| err(e.to_string()))?
            else {
                return Ok(None);
            };
            let path = self.line_file_path(n);
            let total = self
                .line_file_text(n)
                .map_err(|e| err(format!("{path}: {e}")))?
                .lines()
                .count() as u64;
            let line = if clip { (*line).min(total) } else { *line };
            if line == 0 || line > total {
                return Err(err(format!(
                    "line {line} is out of range; \"{path}\" has {}",
                    super::view::count(total, "line")
                )));
            }
            return Ok(Some((n, line as u32)));
        }
        let addr = self
            .resolve_location(location)
            .map_err(|e| err(e.to_string()))?;
        Ok(self.line_row_at(addr).map(|r| (r.file, r.line)))
    }

    /// `list` of a higher-level file: lines `first..=last` clipped to the file, `=>` at
    /// the selected wave's line, `B` at lines with an enabled breakpoint.
    pub(super) fn list_line_file(
        &mut self,
        file: u32,
        first: u32,
        last: u32,
    ) -> Result<String, String> {
        let path = self.line_file_path(file);
        let text = self
            .line_file_text(file)
            .map_err(|e| format!("{path}: {e}"))?
            .to_string();
        let total = text.lines().count() as u32;
        if first > total {
            return Err(format!(
                "Line number {first} out of range; \"{path}\" has {}.",
                super::view::count(total as u64, "line")
            ));
        }
        let last = last.min(total);
        self.list_last = Some((first, last));
        self.line_sources.list_file = Some(file);
        let here = self
            .machine()
            .waves
            .get(self.selected_wave)
            .and_then(|w| self.line_row_at(w.pc))
            .filter(|r| r.file == file)
            .map(|r| r.line);
        let bp_lines: Vec<u32> = self
            .breakpoints()
            .iter()
            .filter(|b| b.enabled)
            .flat_map(|b| &b.addrs)
            .filter_map(|&a| self.line_row_at(a))
            .filter(|r| r.file == file)
            .map(|r| r.line)
            .collect();
        Ok(super::source::listing(
            &text,
            (first, last),
            here,
            &bp_lines,
        ))
    }
}
