//! The assembler: labels, comments, kernel directives and instructions, driven by the
//! instruction table. Reports every error with file:line:col, the line, a caret and a hint;
//! no input makes it panic.

mod chars;
mod diag;
mod directive;
mod source_level;
mod text;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

pub use diag::{AsmErrors, Diagnostic, MAX_DIAGNOSTICS};
pub use directive::MAX_FILE_BYTES;
pub use text::comment_start;
pub(crate) use text::is_ident;

use crate::isa::{ImmKind, Instr, InstrId, Isa, OperandKind};
use crate::program::Program;
use text::{Span, Token};

/// What the assembler may do beyond reading its source; the default is the safe choice.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AssembleOptions {
    /// Let `.file` read files anywhere. By default it reads only files under the source's
    /// own directory (after resolving symlinks and `..`), so that assembling a kernel from
    /// elsewhere cannot copy, say, `/etc/shadow` into a buffer.
    pub allow_files_outside_dir: bool,
}

/// Assembles source text. `file` names the source in diagnostics; `.file` directives
/// resolve paths relative to `base_dir` (the current directory when `None`) and read only
/// under it.
pub fn assemble(source: &str, file: &str, base_dir: Option<&Path>) -> Result<Program, AsmErrors> {
    assemble_with(source, file, base_dir, &AssembleOptions::default())
}

/// [`assemble`] with explicit options.
pub fn assemble_with(
    source: &str,
    file: &str,
    base_dir: Option<&Path>,
    options: &AssembleOptions,
) -> Result<Program, AsmErrors> {
    // A UTF-8 byte order mark starts some editors' files; it is not part of line 1.
    let source = source.strip_prefix('\u{FEFF}').unwrap_or(source);
    if let Some(e) = cr_line_endings(source, file) {
        return Err(AsmErrors::one(e));
    }
    Assembler::new(source, file, base_dir, *options).run()
}

/// Assembles a file from disk.
pub fn assemble_file(path: &Path) -> Result<Program, AsmErrors> {
    assemble_file_with(path, &AssembleOptions::default())
}

/// [`assemble_file`] with explicit options.
pub fn assemble_file_with(path: &Path, options: &AssembleOptions) -> Result<Program, AsmErrors> {
    assemble_file_keeping_source(path, options).map(|(p, _)| p)
}

/// [`assemble_file_with`], also returning the source text it read: for a caller that
/// shows the source (the debugger's `list`, findings), so the file is read once.
pub fn assemble_file_keeping_source(
    path: &Path,
    options: &AssembleOptions,
) -> Result<(Program, String), AsmErrors> {
    let name = path.display().to_string();
    let source = crate::files::read_text(path, crate::files::KERNEL_SOURCE)
        .map_err(|e| AsmErrors::one(Diagnostic::file_level(&name, e.to_string())))?;
    let mut p = assemble_with(&source, &name, path.parent(), options)?;
    p.source = Some(name);
    Ok((p, source))
}

/// The error for a source whose lines end in a lone CR (classic Mac OS): every other tool
/// of the debugger counts lines at LF, so such a file is refused as a whole rather than
/// read as one long line.
fn cr_line_endings(source: &str, file: &str) -> Option<Diagnostic> {
    let b = source.as_bytes();
    let at = (0..b.len()).find(|&i| b[i] == b'\r' && b.get(i + 1) != Some(&b'\n'))?;
    let line_start = b[..at]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |i| i + 1);
    let line = source[line_start..at].trim_end_matches('\r');
    let asm = Assembler::new(line, file, None, AssembleOptions::default());
    let mut d = asm.diagnostic(&RawError {
        line: 1,
        span: Span::new(line.len(), line.len()),
        message: "CR line endings (U+000D CARRIAGE RETURN without LF) are not supported".into(),
        hint: Hint::Text("convert the file to LF (or CRLF) line endings".into()),
    });
    d.line = b[..line_start].iter().filter(|&&c| c == b'\n').count() as u32 + 1;
    Some(d)
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

/// Where a hint comes from: a text, or the names nearest a word, looked up only for the
/// errors that are reported (a suggestion against every label for every error would be
/// quadratic on hostile input).
pub(crate) enum Hint {
    None,
    Text(String),
    /// The lower-case form of a mnemonic, or the nearest mnemonics.
    Mnemonic(String),
    /// The nearest of the kernel's labels.
    Label(String),
    /// The nearest of the kernel's buffers, or how to declare one.
    Buffer(String, &'static str),
}

/// An error as found: located by byte span; column, excerpt and hint are computed only if
/// it is among the reported ones.
pub(crate) struct RawError {
    line: u32,
    span: Span,
    message: String,
    hint: Hint,
}

pub(crate) struct Assembler<'a> {
    /// The source's lines, split once (diagnostics and the second pass index them).
    lines: Vec<&'a str>,
    file: String,
    base_dir: PathBuf,
    options: AssembleOptions,
    /// Errors found so far, at most a few times [`MAX_DIAGNOSTICS`] (see `push_error`).
    errors: Vec<RawError>,
    /// Errors found and dropped because at least [`MAX_DIAGNOSTICS`] came before them.
    dropped: usize,
    program: Program,
    label_lines: BTreeMap<String, u32>,
    /// Index of each buffer in `program.buffers` by name (lookups stay O(1) per line).
    buffer_ids: HashMap<String, usize>,
    pending: Vec<Pending>,
    line_no: u32,
    /// Where each `.arg` was written, to report unknown buffers once the file is read.
    arg_sites: Vec<(u32, Span)>,
    /// The state of `.loc` and `.var` between directives.
    source: source_level::SourceState,
}

/// Lines longer than this (in characters) are shown as an excerpt around the error.
const EXCERPT_CHARS: usize = 160;
/// The longest underline, in characters.
const MAX_UNDERLINE: usize = 80;

impl<'a> Assembler<'a> {
    fn new(source: &'a str, file: &str, base_dir: Option<&Path>, options: AssembleOptions) -> Self {
        Self {
            lines: source.lines().collect(),
            file: file.to_string(),
            base_dir: base_dir.map(Path::to_path_buf).unwrap_or_default(),
            options,
            errors: Vec::new(),
            dropped: 0,
            program: Program::empty("kernel"),
            label_lines: BTreeMap::new(),
            buffer_ids: HashMap::new(),
            pending: Vec::new(),
            line_no: 0,
            arg_sites: Vec::new(),
            source: source_level::SourceState::default(),
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
        self.push_error(RawError {
            line,
            span,
            message: crate::clip_quoted(message),
            hint: hint.map_or(Hint::None, |h| Hint::Text(crate::clip_quoted(h))),
        });
    }

    pub(crate) fn error(&mut self, span: Span, message: String, hint: Option<String>) {
        self.error_at(self.line_no, span, message, hint);
    }

    /// Records an error whose hint is looked up later.
    pub(crate) fn error_hint(&mut self, line: u32, span: Span, message: String, hint: Hint) {
        self.push_error(RawError {
            line,
            span,
            message: crate::clip_quoted(message),
            hint,
        });
    }

    /// Keeps the errors that can still be among the first [`MAX_DIAGNOSTICS`] in line
    /// order, and counts the others: memory stays bounded whatever the input.
    fn push_error(&mut self, e: RawError) {
        self.errors.push(e);
        if self.errors.len() >= 4 * MAX_DIAGNOSTICS {
            self.keep_first();
        }
    }

    fn keep_first(&mut self) {
        // Stable: errors at one place stay in the order found.
        self.errors.sort_by_key(|e| (e.line, e.span.start));
        if self.errors.len() > MAX_DIAGNOSTICS {
            self.dropped += self.errors.len() - MAX_DIAGNOSTICS;
            self.errors.truncate(MAX_DIAGNOSTICS);
        }
    }

    /// The reported form of an error: column and width in characters, the line (or an
    /// excerpt of a long one), the hint.
    fn diagnostic(&self, e: &RawError) -> Diagnostic {
        let text = self.line_text(e.line);
        let start = floor_char(text, e.span.start);
        let end = floor_char(text, e.span.end.max(start));
        let col0 = text[..start].chars().count();
        let len = text[start..end].chars().count().clamp(1, MAX_UNDERLINE);
        let total = col0 + text[start..].chars().count();
        let (source_line, excerpt_start) = if total <= EXCERPT_CHARS {
            (text.to_string(), 0)
        } else {
            let from = col0.saturating_sub(EXCERPT_CHARS / 2 - MAX_UNDERLINE / 2);
            let excerpt: String = text.chars().skip(from).take(EXCERPT_CHARS).collect();
            (excerpt, from)
        };
        let hint = match &e.hint {
            Hint::None => None,
            Hint::Text(h) => Some(h.clone()),
            Hint::Mnemonic(word) => mnemonic_hint(word),
            Hint::Label(word) => {
                let names: Vec<&str> = self.program.labels.keys().map(String::as_str).collect();
                let near = text::nearest(word, &names, 3);
                Some(if names.is_empty() {
                    "no labels are defined".to_string()
                } else if near.is_empty() {
                    "no defined label is close to this name".to_string()
                } else {
                    format!("did you mean {}?", quote_list(&near))
                })
            }
            Hint::Buffer(word, otherwise) => {
                let names: Vec<&str> = self
                    .program
                    .buffers
                    .iter()
                    .map(|b| b.name.as_str())
                    .collect();
                let near = text::nearest(word, &names, 2);
                Some(if near.is_empty() {
                    (*otherwise).to_string()
                } else {
                    format!("did you mean {}?", near.join(", "))
                })
            }
        };
        Diagnostic {
            file: self.file.clone(),
            line: e.line,
            col: col0 as u32 + 1,
            len: len as u32,
            message: e.message.clone(),
            source_line,
            excerpt_start: excerpt_start as u32,
            hint,
        }
    }

    fn run(mut self) -> Result<Program, AsmErrors> {
        let mut addr = 0u64;
        for i in 0..self.lines.len() {
            let raw = self.lines[i];
            self.line_no = i as u32 + 1;
            let line = text::strip_comment(raw);
            // A character that is not plain ASCII (an invisible space, a look-alike letter)
            // is named by its code point; the rest of the line is not read, as every token
            // around it would be misread.
            let mut bad = false;
            let mut from = 0;
            while let Some((at, c)) = chars::next_bad_char(line, from) {
                let (message, hint) = chars::describe(c);
                self.error(Span::new(at, at + c.len_utf8()), message, Some(hint));
                from = at + c.len_utf8();
                bad = true;
            }
            if bad {
                continue;
            }
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
                            self.take_loc(addr);
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
            let after = Span::new(head.end, rest.end);
            if matches!(word, ".loc" | ".var" | ".endvar")
                || (word == ".file"
                    && source_level::is_numbered_file(&line[after.start..after.end]))
            {
                self.source_directive(line, head, after, &operands, addr);
                continue;
            }
            if word.starts_with('.') {
                self.directive(line, head, &operands);
                continue;
            }
            let isa = Isa::get();
            match isa.lookup(word) {
                Some(id) => {
                    self.take_loc(addr);
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
                None => self.error_hint(
                    self.line_no,
                    head,
                    format!("unknown mnemonic `{word}`"),
                    Hint::Mnemonic(suggestable(word)),
                ),
            }
        }
        self.finish_source(addr);
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
                return Err(AsmErrors::one(Diagnostic::file_level(
                    &self.file,
                    e.to_string(),
                )));
            }
            return Ok(self.program);
        }
        self.keep_first();
        let diagnostics = self.errors.iter().map(|e| self.diagnostic(e)).collect();
        Err(AsmErrors {
            diagnostics,
            more: self.dropped,
        })
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
                    if hint == LABEL_HINT {
                        self.error_hint(self.line_no, *span, msg, Hint::Label(suggestable(text)));
                    } else {
                        self.error(*span, msg, Some(hint));
                    }
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
                    return Err((format!("undefined label `{text}`"), Some(LABEL_HINT.into())));
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

/// Stands for "the nearest labels" in an operand error's hint, looked up when reported.
const LABEL_HINT: &str = "\u{0}label";

/// The hint for an unknown mnemonic: its lower-case form when that is one, else the
/// nearest mnemonics (none for a word too long to be a typo of one).
fn mnemonic_hint(word: &str) -> Option<String> {
    let isa = Isa::get();
    if word.len() <= text::MAX_SUGGEST_LEN {
        let lower = word.to_ascii_lowercase();
        if lower != word && isa.lookup(&lower).is_some() {
            return Some(format!("mnemonics are lower case: did you mean `{lower}`?"));
        }
    }
    let names: Vec<&str> = isa.defs().iter().map(|d| d.mnemonic()).collect();
    let near = text::nearest(word, &names, 3);
    (!near.is_empty()).then(|| format!("did you mean {}?", quote_list(&near)))
}

/// `word` kept for a later suggestion, or nothing when it is too long to be a typo (a
/// megabyte token is not copied).
pub(crate) fn suggestable(word: &str) -> String {
    if word.len() <= text::MAX_SUGGEST_LEN {
        word.to_string()
    } else {
        String::new()
    }
}

/// The largest char boundary of `s` at or before `i`.
fn floor_char(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
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
