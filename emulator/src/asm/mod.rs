//! The assembler: labels, comments, kernel directives and instructions, driven by the
//! instruction table. Reports every error with file:line:col, the line, a caret and a hint;
//! no input makes it panic.

mod diag;
mod directive;
mod text;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use diag::{AsmErrors, Diagnostic};
pub use text::comment_start;

use crate::isa::{ImmKind, Instr, InstrId, Isa, OperandKind};
use crate::program::Program;
use text::{Span, Token};

/// Assembles source text. `file` names the source in diagnostics; `.file` directives
/// resolve paths relative to `base_dir` (the current directory when `None`).
pub fn assemble(source: &str, file: &str, base_dir: Option<&Path>) -> Result<Program, AsmErrors> {
    Assembler::new(source, file, base_dir).run()
}

/// Assembles a file from disk.
pub fn assemble_file(path: &Path) -> Result<Program, AsmErrors> {
    let name = path.display().to_string();
    let source = crate::files::read_text(path, crate::files::KERNEL_SOURCE)
        .map_err(|e| AsmErrors(vec![Diagnostic::file_level(&name, e.to_string())]))?;
    let mut p = assemble(&source, &name, path.parent())?;
    p.source = Some(name);
    Ok(p)
}

/// An instruction line after the first pass: its definition, operands and address.
struct Pending {
    line: u32,
    /// A raw word from `.word` instead of an instruction.
    raw: Option<u32>,
    id: InstrId,
    mnemonic: Span,
    operands: Vec<Span>,
    addr: u64,
}

pub(crate) struct Assembler<'a> {
    /// The source's lines, split once (diagnostics and the second pass index them).
    lines: Vec<&'a str>,
    file: String,
    base_dir: PathBuf,
    errors: Vec<Diagnostic>,
    program: Program,
    label_lines: BTreeMap<String, u32>,
    pending: Vec<Pending>,
    line_no: u32,
    /// Where each `.arg` was written, to report unknown buffers once the file is read.
    arg_sites: Vec<(u32, Span)>,
}

impl<'a> Assembler<'a> {
    fn new(source: &'a str, file: &str, base_dir: Option<&Path>) -> Self {
        Self {
            lines: source.lines().collect(),
            file: file.to_string(),
            base_dir: base_dir.map(Path::to_path_buf).unwrap_or_default(),
            errors: Vec::new(),
            program: Program::empty("kernel"),
            label_lines: BTreeMap::new(),
            pending: Vec::new(),
            line_no: 0,
            arg_sites: Vec::new(),
        }
    }

    fn line_text(&self, line: u32) -> &'a str {
        (line as usize)
            .checked_sub(1)
            .and_then(|i| self.lines.get(i))
            .copied()
            .unwrap_or("")
    }

    /// Records an error at `span` of the current line (or of `line` when given).
    pub(crate) fn error_at(
        &mut self,
        line: u32,
        span: Span,
        message: String,
        hint: Option<String>,
    ) {
        let text = self.line_text(line);
        let col = text[..span.start.min(text.len())].chars().count() as u32 + 1;
        let len = text
            .get(span.start..span.end)
            .map_or(1, |s| s.chars().count().max(1)) as u32;
        self.errors.push(Diagnostic {
            file: self.file.clone(),
            line,
            col,
            len,
            message,
            source_line: text.to_string(),
            hint,
        });
    }

    pub(crate) fn error(&mut self, span: Span, message: String, hint: Option<String>) {
        self.error_at(self.line_no, span, message, hint);
    }

    fn run(mut self) -> Result<Program, AsmErrors> {
        let mut addr = 0u64;
        for i in 0..self.lines.len() {
            let raw = self.lines[i];
            self.line_no = i as u32 + 1;
            let line = text::strip_comment(raw);
            let mut rest = Span::new(0, line.len());
            // Labels: `name:` (several may precede an instruction).
            while let Some((label, after)) = text::leading_label(line, rest) {
                let name = &line[label.start..label.end];
                if self.program.labels.contains_key(name) {
                    let first = self.label_lines[name];
                    self.error(
                        label,
                        format!("label `{name}` is defined twice"),
                        Some(format!("first defined on line {first}")),
                    );
                } else {
                    self.program.labels.insert(name.to_string(), addr);
                    self.label_lines.insert(name.to_string(), self.line_no);
                }
                rest = after;
            }
            let Some(head) = text::first_word(line, rest) else {
                continue;
            };
            let word = &line[head.start..head.end];
            let operands = text::split_operands(line, Span::new(head.end, rest.end));
            if word == ".word" {
                for span in operands {
                    let t = &line[span.start..span.end];
                    match text::parse_int(t).filter(|v| (-(1i64 << 31)..(1i64 << 32)).contains(v)) {
                        Some(v) => {
                            self.pending.push(Pending {
                                line: self.line_no,
                                raw: Some(v as u32),
                                id: 0,
                                mnemonic: span,
                                operands: Vec::new(),
                                addr,
                            });
                            addr += 4;
                        }
                        None => self.error(
                            span,
                            format!("`{t}` is not a 32-bit value"),
                            Some("usage: .word VALUE[, VALUE...]".into()),
                        ),
                    }
                }
                continue;
            }
            if word.starts_with('.') {
                self.directive(line, head, &operands);
                continue;
            }
            let isa = Isa::get();
            match isa.lookup(word) {
                Some(id) => {
                    self.pending.push(Pending {
                        line: self.line_no,
                        raw: None,
                        id,
                        mnemonic: head,
                        operands,
                        addr,
                    });
                    addr += isa.def(id).len as u64;
                }
                None => {
                    let near = isa.nearest(word, 3);
                    self.error(
                        head,
                        format!("unknown mnemonic `{word}`"),
                        Some(format!("did you mean {}?", quote_list(&near))),
                    );
                }
            }
        }
        let pending = std::mem::take(&mut self.pending);
        for p in &pending {
            self.line_no = p.line;
            if let Some(w) = p.raw {
                self.program.code.push(w);
                continue;
            }
            if let Some(instr) = self.operands(p) {
                match instr.encode_words() {
                    Ok(words) => self.program.code.extend(words),
                    Err(e) => self.error(p.mnemonic, e.to_string(), None),
                }
                self.program.lines.push((p.addr, p.line));
            }
        }
        directive::finish(&mut self);
        if self.errors.is_empty() {
            // The limits every kernel is held to, assembled or loaded (the directives
            // already checked most of them where they were written).
            if let Err(e) = self.program.validate() {
                self.errors
                    .push(Diagnostic::file_level(&self.file, e.to_string()));
            }
        }
        if self.errors.is_empty() {
            Ok(self.program)
        } else {
            Err(AsmErrors(self.errors))
        }
    }

    /// Parses an instruction's operands against its syntax line.
    fn operands(&mut self, p: &Pending) -> Option<Instr> {
        let line = self.line_text(p.line);
        let def = Isa::get().def(p.id);
        let syntax = def.row.syntax;
        let usage = if syntax.is_empty() {
            format!("`{}` takes no operands", def.mnemonic())
        } else {
            format!("{} {}", def.mnemonic(), syntax)
        };
        // Trailing immediates and cache policy may be omitted (they default to 0).
        let required = def
            .operands
            .iter()
            .rposition(|o| !matches!(o.kind, OperandKind::Cpol | OperandKind::Imm(ImmKind::S24)))
            .map_or(0, |i| i + 1);
        if p.operands.len() < required || p.operands.len() > def.operands.len() {
            let span = p
                .operands
                .get(def.operands.len())
                .copied()
                .unwrap_or(p.mnemonic);
            let found = p.operands.len();
            self.error(
                span,
                format!(
                    "`{}` expects {} operand{}, found {found}",
                    def.mnemonic(),
                    if required == def.operands.len() {
                        required.to_string()
                    } else {
                        format!("{required} to {}", def.operands.len())
                    },
                    if def.operands.len() == 1 { "" } else { "s" }
                ),
                Some(usage),
            );
            return None;
        }
        let mut instr = Instr::new(p.id);
        let mut ok = true;
        for (op, span) in def.operands.iter().zip(&p.operands) {
            let text = &line[span.start..span.end];
            match self.operand_value(op.kind, text, p.addr) {
                Ok(v) => instr.set(op.slot, v),
                Err((msg, hint)) => {
                    let hint = hint.unwrap_or_else(|| {
                        format!(
                            "operand `{}` expects {}; usage: {usage}",
                            op.token,
                            op.expected()
                        )
                    });
                    self.error(*span, msg, Some(hint));
                    ok = false;
                }
            }
        }
        ok.then_some(instr)
    }

    fn operand_value(
        &self,
        kind: OperandKind,
        text: &str,
        addr: u64,
    ) -> Result<i64, (String, Option<String>)> {
        match kind {
            OperandKind::Reg { file, count } => match text::parse_reg(text) {
                Token::Reg(f, first, n) => {
                    let p = file.prefix();
                    if f != file {
                        return Err((
                            format!("expected {}, found `{text}`", kind.expected()),
                            None,
                        ));
                    }
                    if let Some(n) = n {
                        if n != count as u32 {
                            return Err((
                                format!(
                                    "bad tuple `{text}`: this operand takes {count} register{}",
                                    if count == 1 { "" } else { "s" }
                                ),
                                Some(if count == 1 {
                                    format!("write a single register, e.g. {p}{first}")
                                } else {
                                    format!(
                                        "write {p}[{first}:{}]",
                                        first as u64 + count as u64 - 1
                                    )
                                }),
                            ));
                        }
                    }
                    if first as u64 + count as u64 > file.count() as u64 {
                        return Err((
                            format!("register `{text}` does not exist"),
                            Some(format!("{p}0-{p}{} exist; this operand needs {count} consecutive register{}", file.count() - 1, if count == 1 { "" } else { "s" })),
                        ));
                    }
                    Ok(first as i64)
                }
                Token::BadTuple => Err((
                    format!("bad register tuple `{text}`"),
                    Some(
                        "write a tuple as v[4:5] or u[8:11]: first and last register, ascending"
                            .into(),
                    ),
                )),
                _ => Err((
                    format!("expected {}, found `{text}`", kind.expected()),
                    None,
                )),
            },
            OperandKind::Cpol => text::parse_cpol(text).ok_or_else(|| {
                (
                    format!("bad cache policy `{text}`"),
                    Some(format!(
                        "write any of {} separated by spaces, or 0-7",
                        crate::isa::operand::CPOL_NAMES.join(", ")
                    )),
                )
            }),
            OperandKind::Imm(ImmKind::Rel14) => {
                // A label wins over the relative form, so labels may begin with `.`.
                let target = if let Some(a) = self.program.labels.get(text) {
                    *a as i64
                } else if let Some(off) = text.strip_prefix('.') {
                    let rel = text::parse_int(off.trim()).ok_or_else(|| {
                        (
                            format!("bad relative target `{text}`"),
                            Some("write a label, or .+N / .-N bytes".into()),
                        )
                    })?;
                    (addr as i64)
                        .checked_add(rel)
                        .ok_or_else(|| (format!("branch target `{text}` is out of reach"), None))?
                } else {
                    let names: Vec<&str> = self.program.labels.keys().map(String::as_str).collect();
                    let near = text::nearest(text, &names, 3);
                    let hint = if near.is_empty() {
                        "no labels are defined".to_string()
                    } else {
                        format!("did you mean {}?", quote_list(&near))
                    };
                    return Err((format!("undefined label `{text}`"), Some(hint)));
                };
                let delta = target - addr as i64;
                if delta % 4 != 0 {
                    return Err((
                        format!("branch target {target:#x} is not 4-byte aligned"),
                        None,
                    ));
                }
                let (lo, hi) = ImmKind::Rel14.range();
                let words = delta / 4;
                if !(lo..=hi).contains(&words) {
                    return Err((
                        format!(
                            "branch target is {delta} bytes away, beyond the ±{} byte reach",
                            (hi + 1) * 4
                        ),
                        None,
                    ));
                }
                Ok(words)
            }
            OperandKind::Imm(k) => {
                let v = if k == ImmKind::B32 {
                    text::parse_int(text)
                        .or_else(|| text::parse_f32(text).map(|f| f.to_bits() as i64))
                } else {
                    text::parse_int(text)
                };
                let v = v.ok_or_else(|| {
                    (
                        format!("expected an immediate ({}), found `{text}`", k.name()),
                        None,
                    )
                })?;
                let (lo, hi) = k.range();
                if !(lo..=hi).contains(&v) {
                    return Err((
                        format!("immediate {v} is out of range for {}", k.name()),
                        Some(format!("allowed range: {lo}..={hi}")),
                    ));
                }
                // b32 keeps the bit pattern; negative values are two's complement.
                Ok(if k == ImmKind::B32 {
                    (v as u32) as i64
                } else {
                    v
                })
            }
        }
    }
}

fn quote_list(items: &[&str]) -> String {
    items
        .iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The closest of `names` to `word`, if any is plausibly a typo of it (for hints).
pub fn nearest_word<'a>(word: &str, names: &[&'a str]) -> Option<&'a str> {
    text::nearest(word, names, 1).into_iter().next()
}
