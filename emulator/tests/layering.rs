//! The emulator's module layering: each top-level module of `emulator/src` uses only the
//! modules below it in [`ORDER`], and docs/architecture.md ("The emulator, bottom up")
//! lists them in that order. A use is any `crate::` path (in a `use`, grouped or not, or
//! inline in an expression or a type) and any `super::` path that climbs to the crate root;
//! comments and string literals are not code and are skipped.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The top-level modules, bottom first: a module may use those before it, never those
/// after it.
const ORDER: &[&str] = &[
    "files", "isa", "memory", "wave", "fault", "program", "asm", "disasm", "demo", "code", "trace",
    "exec", "check", "machine", "debug", "bench",
];

/// A use of a top-level module: where, and which.
#[derive(Debug, PartialEq, Eq)]
struct Use {
    line: usize,
    module: String,
}

/// `src` with comments, string and character literals blanked out (newlines kept, so
/// line numbers hold).
fn code_only(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let blank = |out: &mut String, s: &[char]| {
        out.extend(s.iter().map(|&x| if x == '\n' { '\n' } else { ' ' }));
    };
    let ident = |x: char| x.is_alphanumeric() || x == '_';
    let mut i = 0;
    while i < c.len() {
        let rest = &c[i..];
        let end = if rest.starts_with(&['/', '/']) {
            i + rest.iter().position(|&x| x == '\n').unwrap_or(rest.len())
        } else if rest.starts_with(&['/', '*']) {
            let (mut depth, mut j) = (0usize, i);
            while j < c.len() {
                if c[j..].starts_with(&['/', '*']) {
                    depth += 1;
                    j += 2;
                } else if c[j..].starts_with(&['*', '/']) {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            j
        } else if c[i] == '"' {
            // A raw string's `r` and hashes come before its quote: `r#"…"#`, `br"…"`.
            let hashes = c[..i].iter().rev().take_while(|&&x| x == '#').count();
            let r = i - hashes;
            let raw = r > 0
                && c[r - 1] == 'r'
                && (r < 2 || !ident(c[r - 2]) || (c[r - 2] == 'b' && (r < 3 || !ident(c[r - 3]))));
            let mut j = i + 1;
            if raw {
                let close: Vec<char> = std::iter::once('"')
                    .chain(std::iter::repeat_n('#', hashes))
                    .collect();
                while j < c.len() && !c[j..].starts_with(&close) {
                    j += 1;
                }
                j + close.len()
            } else {
                while j < c.len() && c[j] != '"' {
                    j += if c[j] == '\\' { 2 } else { 1 };
                }
                j + 1
            }
        } else if c[i] == '\'' && c.get(i + 1) == Some(&'\\') {
            let mut j = i + 3;
            while j < c.len() && c[j] != '\'' {
                j += 1;
            }
            j + 1
        } else if c[i] == '\'' && c.get(i + 2) == Some(&'\'') {
            i + 3
        } else {
            // Code, or a lifetime's quote.
            out.push(c[i]);
            i += 1;
            continue;
        };
        let end = end.min(c.len());
        blank(&mut out, &c[i..end]);
        i = end;
    }
    out
}

/// Identifiers, `::`, and single punctuation characters, each with its line.
fn tokens(code: &str) -> Vec<(String, usize)> {
    let c: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < c.len() {
        let x = c[i];
        if x == '\n' {
            line += 1;
            i += 1;
        } else if x.is_whitespace() {
            i += 1;
        } else if x.is_alphanumeric() || x == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            out.push((c[start..i].iter().collect(), line));
        } else if c[i..].starts_with(&[':', ':']) {
            out.push(("::".into(), line));
            i += 2;
        } else {
            out.push((x.to_string(), line));
            i += 1;
        }
    }
    out
}

/// The module path of a file under `src/` (`exec/lsu.rs`: `exec::lsu`; `lib.rs`: the root).
fn file_module(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The crate-root names a path names right after `crate::` (or a `super::` that climbs
/// to the root), from token `i` on: one name, or the first name of each item of a group.
fn root_names(t: &[(String, usize)], i: usize) -> Vec<(String, usize)> {
    match t.get(i) {
        Some((tok, _)) if tok == "{" => {
            let (mut depth, mut j, mut out, mut first) = (0, i, Vec::new(), true);
            while let Some((tok, line)) = t.get(j) {
                match tok.as_str() {
                    "{" => {
                        depth += 1;
                        first = depth == 1;
                    }
                    "}" => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    "," if depth == 1 => first = true,
                    _ if first && depth == 1 => {
                        out.push((tok.clone(), *line));
                        first = false;
                    }
                    _ => {}
                }
                j += 1;
            }
            out
        }
        Some((tok, line)) => vec![(tok.clone(), *line)],
        None => Vec::new(),
    }
}

/// The top-level modules (of `modules`) that the code of a file of module `path` uses.
fn uses(src: &str, path: &[String], modules: &BTreeSet<String>) -> Vec<Use> {
    let t = tokens(&code_only(src));
    let is = |i: usize, s: &str| t.get(i).is_some_and(|(x, _)| x == s);
    let mut out = Vec::new();
    // Inline `mod name {` blocks: their names, and the brace depth they close at.
    let (mut inline, mut depth): (Vec<(String, usize)>, usize) = (Vec::new(), 0);
    let mut i = 0;
    while i < t.len() {
        let tok = t[i].0.as_str();
        match tok {
            "{" => depth += 1,
            "}" => {
                depth -= 1;
                if inline.last().is_some_and(|&(_, d)| d == depth) {
                    inline.pop();
                }
            }
            "mod" if is(i + 2, "{") => {
                inline.push((t[i + 1].0.clone(), depth));
            }
            _ => {}
        }
        let names = if tok == "crate" && is(i + 1, "::") {
            root_names(&t, i + 2)
        } else if tok == "super" && is(i + 1, "::") && (i == 0 || !is(i - 1, "::")) {
            let mut k = i;
            while is(k, "super") && is(k + 1, "::") {
                k += 2;
            }
            let here = path.len() + inline.len();
            if (k - i) / 2 >= here {
                root_names(&t, k)
            } else {
                Vec::new()
            }
        } else {
            Vec::new()
        };
        out.extend(
            names
                .into_iter()
                .filter(|(n, _)| modules.contains(n))
                .map(|(module, line)| Use { line, module }),
        );
        i += 1;
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let p = entry.expect("a directory entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

fn rank(module: &str) -> Option<usize> {
    ORDER.iter().position(|m| *m == module)
}

#[test]
fn no_module_uses_one_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("lib.rs");
    let declared: BTreeSet<String> = tokens(&code_only(&lib))
        .windows(2)
        .filter(|w| w[0].0 == "mod")
        .map(|w| w[1].0.clone())
        .collect();
    let ordered: BTreeSet<String> = ORDER.iter().map(|m| m.to_string()).collect();
    assert_eq!(
        declared, ordered,
        "lib.rs declares these modules; ORDER (and docs/architecture.md) must place each"
    );
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut wrong = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&src).expect("under src/");
        let path = file_module(rel);
        let Some(me) = path.first() else { continue };
        let mine = rank(me).unwrap_or_else(|| panic!("{} is in no module of ORDER", rel.display()));
        let text = std::fs::read_to_string(f).expect("readable source");
        for u in uses(&text, &path, &declared) {
            if rank(&u.module).is_some_and(|r| r > mine) {
                wrong.push(format!(
                    "emulator/src/{}:{}: `{me}` uses `{}`, which is above it",
                    rel.display(),
                    u.line,
                    u.module
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "upward uses (order, bottom first: {ORDER:?}):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn architecture_doc_lists_the_order() {
    let doc = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/architecture.md");
    let doc = std::fs::read_to_string(doc).expect("docs/architecture.md");
    let section = doc
        .split("\n## ")
        .find(|s| s.starts_with("The emulator, bottom up"))
        .expect("a section \"The emulator, bottom up\"");
    let section = section.split("\n### ").next().unwrap_or(section);
    let listed: Vec<String> = section
        .lines()
        .filter(|l| l.starts_with('|'))
        .filter_map(|l| l.split('|').nth(1))
        .filter(|cell| cell.contains('`'))
        .flat_map(|cell| {
            cell.split('`')
                .skip(1)
                .step_by(2)
                .map(|m| m.trim_end_matches('/').trim_end_matches(".rs").to_string())
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(
        listed, ORDER,
        "the table's first column, top to bottom, must be ORDER"
    );
}

#[test]
fn every_form_of_use_is_seen() {
    let modules: BTreeSet<String> = ORDER.iter().map(|m| m.to_string()).collect();
    let src = r##"
use crate::{exec::Op, wave};
use crate::machine::{self, Machine};
// use crate::debug::Engine;
/* crate::bench:: */
fn f() -> crate::trace::MemTrace {
    let s = "crate::asm::x";
    let r = r#"crate::disasm::y"#;
    let c = '{';
    let _ = super::fault::lanes_text(1);
    let _ = super::super::demo::NAME;
    crate::check::Checks::default();
}
mod tests {
    use super::*;
    use super::super::super::program::Program;
}
"##;
    let found: Vec<(usize, &str)> = uses(src, &["isa".to_string(), "op".to_string()], &modules)
        .iter()
        .map(|u| (u.line, ORDER[rank(&u.module).expect("known")]))
        .collect();
    assert_eq!(
        found,
        [
            (2, "exec"),
            (2, "wave"),
            (3, "machine"),
            (6, "trace"),
            (11, "demo"),
            (12, "check"),
            (16, "program")
        ]
    );
}
