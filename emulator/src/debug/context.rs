//! The context, as pwndbg shows it after every stop: the stop reason, the code around the
//! PC, the source lines, the registers that changed since the previous stop, the lanes of
//! the registers the instruction at the PC reads and writes, and EXEC on a lane scale.
//! `context` shows it now; `set context on` after every stop (the REPL turns it on), the
//! reason left out there since the stop's description is right above it;
//! `set context-sections` chooses the sections and their order.

use std::fmt::Write;

use serde::{Deserialize, Serialize};

use super::{view, Engine};
use crate::check::regs::{Range, RegUse};
use crate::fault::lanes_text;
use crate::isa::{OperandKind, RegFile};
use crate::machine::CodeWord;

/// One section of the context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Section {
    /// Why the run stopped, and the selection.
    Reason,
    /// Disassembly around the PC.
    Code,
    /// Source lines around the PC's line.
    Source,
    /// Registers of the selected wave that changed since the previous stop.
    Regs,
    /// The lanes of the registers the instruction at the PC reads and writes.
    Lanes,
    /// EXEC on a lane scale.
    Exec,
}

impl Section {
    /// Every section, in the default order.
    pub const ALL: [Section; 6] = [
        Section::Reason,
        Section::Code,
        Section::Source,
        Section::Regs,
        Section::Lanes,
        Section::Exec,
    ];

    /// The name `set context-sections` takes.
    pub const fn name(self) -> &'static str {
        match self {
            Section::Reason => "reason",
            Section::Code => "code",
            Section::Source => "source",
            Section::Regs => "regs",
            Section::Lanes => "lanes",
            Section::Exec => "exec",
        }
    }

    /// The section with this name (`registers` and `disasm` are accepted too).
    pub fn parse(word: &str) -> Option<Section> {
        Some(match word {
            "reason" => Section::Reason,
            "code" | "disasm" => Section::Code,
            "source" => Section::Source,
            "regs" | "registers" => Section::Regs,
            "lanes" => Section::Lanes,
            "exec" => Section::Exec,
            _ => return None,
        })
    }
}

/// Parses `code,regs,exec` (commas or spaces; `all` for every section). Repeats are
/// dropped; at least one section is needed.
pub fn parse_sections(text: &str) -> Result<Vec<Section>, String> {
    let names: Vec<&str> = Section::ALL.iter().map(|s| s.name()).collect();
    let mut out = Vec::new();
    for w in text
        .split([',', ' '])
        .map(str::trim)
        .filter(|w| !w.is_empty())
    {
        if w == "all" {
            out.extend(Section::ALL);
            continue;
        }
        let s = Section::parse(w).ok_or_else(|| {
            format!(
                "unknown context section `{w}` (sections: {}, or all)",
                names.join(", ")
            )
        })?;
        out.push(s);
    }
    let mut seen = Vec::new();
    out.retain(|s| {
        let new = !seen.contains(s);
        seen.push(*s);
        new
    });
    if out.is_empty() {
        return Err(format!("needs sections: {}, or all", names.join(", ")));
    }
    Ok(out)
}

/// `reason,code,...`: the sections as `set context-sections` takes them.
pub fn sections_text(sections: &[Section]) -> String {
    sections
        .iter()
        .map(|s| s.name())
        .collect::<Vec<_>>()
        .join(",")
}

/// Whether the context shows after every stop, and which sections.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextSettings {
    /// Shown after every stop (`set context on|off`; off by default, the REPL turns it on).
    pub on: bool,
    /// The sections shown, in this order (`set context-sections`); never empty.
    pub sections: Vec<Section>,
}

impl Default for ContextSettings {
    fn default() -> Self {
        Self {
            on: false,
            sections: Section::ALL.to_vec(),
        }
    }
}

/// How wide the section headers are (at most: a narrower `set width` narrows them).
const WIDTH: usize = 78;

/// A section's header, `-- title ----`, [`WIDTH`] columns or `width` if narrower (0:
/// unlimited); a title too long for it is cut.
fn header(s: &mut String, width: usize, title: &str) {
    let full = if width == 0 { WIDTH } else { WIDTH.min(width) };
    let head = format!("-- {title} ");
    let dashes = full.saturating_sub(head.chars().count());
    let line = format!("{head}{}", "-".repeat(dashes));
    if width == 0 {
        let _ = writeln!(s, "{line}");
    } else {
        let _ = writeln!(s, "{}", super::width::cut(line.trim_end(), width));
    }
}

/// What one register operand of an instruction does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegAccess {
    /// Vector or uniform.
    pub file: RegFile,
    /// Register number: 0-127 for vector, 0-63 for uniform; a tuple operand gives one entry per
    /// register.
    pub reg: u8,
    /// Read by the instruction.
    pub read: bool,
    /// Written by the instruction.
    pub written: bool,
}

/// The registers the instruction at `pc` reads and writes (the sanitizer's register use
/// of the instruction: a store reads its data register; an atomic reads it and writes back
/// only with `.rtn`), in the order the instruction names them, each register once.
pub fn register_accesses(m: &crate::machine::Machine, pc: u64) -> Vec<RegAccess> {
    let Some(d) = m.instr_at(pc) else {
        return Vec::new();
    };
    let u = RegUse::of(&CodeWord::Instr(*d));
    let mut out: Vec<RegAccess> = Vec::new();
    let mut add = |r: Range, read: bool, written: bool| {
        for reg in r.regs() {
            match out.iter_mut().find(|a| a.file == r.file && a.reg == reg) {
                Some(a) => {
                    a.read |= read;
                    a.written |= written;
                }
                None => out.push(RegAccess {
                    file: r.file,
                    reg,
                    read,
                    written,
                }),
            }
        }
    };
    for (r, _) in u.reads() {
        add(r, true, false);
    }
    for r in u.writes() {
        add(r, false, true);
    }
    // In operand order, as the instruction is written.
    let def = d.instr.def();
    let position = |a: &RegAccess| {
        def.operands.iter().position(|o| match o.kind {
            OperandKind::Reg { file, count } => {
                let first = d.instr.get(o.slot) as u32;
                file == a.file && (first..first + count as u32).contains(&(a.reg as u32))
            }
            _ => false,
        })
    };
    out.sort_by_key(position);
    out
}

/// The most vector registers the lanes section shows (a 4-register load is the most an
/// instruction names).
const MAX_LANE_VIEWS: usize = 6;

impl Engine {
    /// Turns the context after every stop on or off.
    pub fn set_context(&mut self, on: bool) {
        self.context.on = on;
    }

    /// Whether the context is shown after every stop, and its sections in order.
    pub fn context_settings(&self) -> &ContextSettings {
        &self.context
    }

    /// The context now, its sections as `set context-sections` chose them.
    pub fn context_text(&self) -> String {
        self.context_sections(false)
    }

    /// The context shown right after a stop's description: the reason section, which
    /// would repeat that description, is left out.
    pub fn context_after_stop(&self) -> String {
        self.context_sections(true)
    }

    fn context_sections(&self, after_stop: bool) -> String {
        let mut s = String::new();
        for section in &self.context.sections {
            match section {
                Section::Reason if after_stop => {}
                Section::Reason => self.context_reason(&mut s),
                Section::Code => self.context_code(&mut s),
                Section::Source => self.context_source(&mut s),
                Section::Regs => self.context_regs(&mut s),
                Section::Lanes => self.context_lanes(&mut s),
                Section::Exec => self.context_exec(&mut s),
            }
        }
        header(&mut s, self.width, "end");
        // Code and source lines, long lane lists: cut at a space, as pwndbg cuts them.
        super::width::cut_lines(&s, self.width)
    }

    fn selected(&self) -> Option<&crate::wave::Wave> {
        self.machine().waves.get(self.selected_wave)
    }

    fn context_reason(&self, s: &mut String) {
        header(s, self.width, "reason");
        match self.last_stop() {
            Some(stop) => {
                let text = view::describe_stop(self, stop);
                let _ = writeln!(s, "{}", text.lines().next().unwrap_or_default());
            }
            None => s.push_str("The launch has not run yet.\n"),
        }
        if let Some(w) = self.selected() {
            let lane = self.selected_lane;
            let _ = writeln!(
                s,
                "selected: wave {} (workgroup {}, {}), lane {lane} ({}), pc {}",
                w.id,
                w.workgroup,
                w.state.name(),
                if w.exec >> lane & 1 == 1 {
                    "active"
                } else {
                    "inactive"
                },
                view::pc_text(self.machine(), view::shown_pc(self.machine(), w))
            );
        }
    }

    fn context_code(&self, s: &mut String) {
        header(s, self.width, "code");
        match self.selected() {
            Some(w) => s.push_str(&view::disassembly(
                self,
                view::shown_pc(self.machine(), w),
                3,
                5,
            )),
            None => s.push_str("no wave selected\n"),
        }
    }

    fn context_source(&self, s: &mut String) {
        let Some((name, _)) = &self.source else {
            header(s, self.width, "source");
            let _ = writeln!(s, "{}", self.no_source_reason().unwrap_or_default());
            return;
        };
        header(s, self.width, &format!("source: {name}"));
        let m = self.machine();
        let Some(line) = self
            .selected()
            .and_then(|w| m.program().line_at(view::shown_pc(m, w)))
        else {
            s.push_str("no source line at the PC\n");
            return;
        };
        for n in line.saturating_sub(2).max(1)..=line + 2 {
            if let Some(text) = self.source_text_line(n) {
                let mark = if n == line { "=>" } else { "  " };
                let _ = writeln!(s, "{mark}{n:>5}\t{text}");
            }
        }
    }

    fn context_regs(&self, s: &mut String) {
        header(s, self.width, "registers changed since the previous stop");
        let (m, prev) = (self.machine(), self.previous());
        let Some(w) = self.selected() else {
            s.push_str("no wave selected\n");
            return;
        };
        let Some(p) = prev.waves.get(self.selected_wave).filter(|p| p.id == w.id) else {
            s.push_str("(the wave was not resident at the previous stop)\n");
            return;
        };
        let mut lines = Vec::new();
        if p.pc != w.pc {
            lines.push(format!(
                "pc    {} -> {}",
                view::pc_text(m, p.pc),
                view::pc_text(m, w.pc)
            ));
        }
        if p.exec != w.exec {
            lines.push(format!("exec  {:#010x} -> {:#010x}", p.exec, w.exec));
        }
        for r in 0..w.u.len() {
            if p.u[r] != w.u[r] {
                lines.push(format!(
                    "{:<5} {:#010x} -> {:#010x}",
                    format!("u{r}"),
                    p.u[r],
                    w.u[r]
                ));
            }
        }
        let lane = self.selected_lane as usize;
        for r in 0..w.v.len() {
            let changed = (0..32)
                .filter(|&l| w.v[r][l] != p.v[r][l])
                .fold(0u32, |acc, l| acc | 1 << l);
            if changed != 0 {
                let mut line = format!(
                    "{:<5} lane{} {}",
                    format!("v{r}"),
                    if changed.count_ones() == 1 { "" } else { "s" },
                    lanes_text(changed)
                );
                if changed >> lane & 1 == 1 {
                    let _ = write!(
                        line,
                        "; lane {lane}: {:#010x} -> {:#010x}",
                        p.v[r][lane], w.v[r][lane]
                    );
                }
                lines.push(line);
            }
        }
        if lines.is_empty() {
            s.push_str("(none)\n");
        }
        for l in lines {
            let _ = writeln!(s, "{l}");
        }
    }

    fn context_lanes(&self, s: &mut String) {
        let m = self.machine();
        let Some(w) = self.selected() else {
            header(s, self.width, "lanes");
            s.push_str("no wave selected\n");
            return;
        };
        let Some(_) = m.instr_at(w.pc) else {
            header(s, self.width, "lanes");
            s.push_str("no instruction at the PC\n");
            return;
        };
        let accesses = register_accesses(m, w.pc);
        let name = |a: &RegAccess| match a.file {
            RegFile::Vector => format!("v{}", a.reg),
            RegFile::Uniform => format!("u{}", a.reg),
        };
        let list = |f: &dyn Fn(&RegAccess) -> bool| {
            let v: Vec<String> = accesses.iter().filter(|a| f(a)).map(name).collect();
            if v.is_empty() {
                "nothing".to_string()
            } else {
                v.join(" ")
            }
        };
        header(
            s,
            self.width,
            &format!(
                "lanes: {} reads {}, writes {}",
                view::instr_text(m, w.pc),
                list(&|a| a.read),
                list(&|a| a.written)
            ),
        );
        let uniforms: Vec<String> = accesses
            .iter()
            .filter(|a| a.file == RegFile::Uniform)
            .map(|a| format!("u{} = {:#010x}", a.reg, w.u[a.reg as usize]))
            .collect();
        if !uniforms.is_empty() {
            let _ = writeln!(s, "{}", uniforms.join("  "));
        }
        let vectors: Vec<&RegAccess> = accesses
            .iter()
            .filter(|a| a.file == RegFile::Vector)
            .collect();
        for a in vectors.iter().take(MAX_LANE_VIEWS) {
            s.push_str(&view::lane_view(
                self,
                self.selected_wave,
                a.reg as usize,
                'x',
                self.width,
            ));
        }
        if vectors.len() > MAX_LANE_VIEWS {
            let _ = writeln!(
                s,
                "... and {} more registers (print vN shows one)",
                vectors.len() - MAX_LANE_VIEWS
            );
        }
        if accesses.is_empty() {
            s.push_str("(the instruction names no register)\n");
        }
    }

    fn context_exec(&self, s: &mut String) {
        header(s, self.width, "exec");
        let Some(w) = self.selected() else {
            s.push_str("no wave selected\n");
            return;
        };
        s.push_str(&exec_scale(w.exec, self.selected_lane));
    }
}

/// EXEC on a lane scale: `#` an active lane, `.` an inactive one, lane 0 on the left, `^`
/// under the selected lane.
pub fn exec_scale(exec: u32, selected: u8) -> String {
    let active = exec.count_ones();
    let mut s = format!(
        "exec {exec:#010x}: {active} of 32 lanes active{}\n",
        if active == 0 {
            String::new()
        } else {
            format!(" ({})", lanes_text(exec))
        }
    );
    let mut scale = [b' '; 32];
    for (at, label) in [(0usize, "0"), (8, "8"), (16, "16"), (24, "24"), (30, "31")] {
        scale[at..at + label.len()].copy_from_slice(label.as_bytes());
    }
    let bar: String = (0..32)
        .map(|l| if exec >> l & 1 == 1 { '#' } else { '.' })
        .collect();
    let _ = writeln!(s, "  lane {}", String::from_utf8_lossy(&scale).trim_end());
    let _ = writeln!(s, "       {bar}");
    let _ = writeln!(
        s,
        "       {}^ lane {selected}",
        " ".repeat((selected as usize).min(31))
    );
    s
}
