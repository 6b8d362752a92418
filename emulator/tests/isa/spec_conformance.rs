//! Checks every spec row of the table against the spec files themselves, when they are
//! present (../shared/spec beside the repository; CI has them, a bare clone may not).
//! Outside CI a missing spec directory skips the test with a message; in CI it fails.

use std::collections::HashMap;
use std::path::PathBuf;

use wavedbg_emulator::isa::{Isa, Origin};

/// One spec row as read from the text: (format, opcode, fields, latency, flags, syntax).
type SpecRow = (String, u8, Vec<(String, u32)>, String, String, String);

fn spec_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/spec"));
    dir.join("isa-group4-lsu.txt").exists().then_some(dir)
}

fn hex(s: &str) -> u32 {
    u32::from_str_radix(s.trim_start_matches("0x"), 16).expect("hex field")
}

fn parse_encoding(enc: &str) -> (String, u8, Vec<(String, u32)>) {
    let mut words = enc.split_whitespace();
    let format = words.next().expect("format").to_string();
    assert_eq!(words.next(), Some("op"));
    let mut opcode = 0;
    let mut fields = Vec::new();
    for w in words {
        let (k, v) = w.split_once('=').expect("field=value");
        if k == "opcode" {
            opcode = hex(v) as u8;
        } else {
            fields.push((k.to_string(), hex(v)));
        }
    }
    (format, opcode, fields)
}

/// Syntax lines: `mnemonic op:kind ...`.
fn syntax_lines(text: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for line in text.lines() {
        if line.contains('|') || line.contains('（') {
            continue;
        }
        let mut words = line.split_whitespace();
        let Some(m) = words.next() else { continue };
        let ops: Vec<&str> = words.collect();
        let is_mn =
            m.contains('.') || ["writelane", "readfirst", "readlane", "ballot"].contains(&m);
        if is_mn
            && m.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.')
            && ops.iter().all(|o| o.contains(':'))
        {
            out.insert(m.to_string(), ops.join(" "));
        }
    }
    out
}

fn lsu_rows(text: &str) -> HashMap<String, SpecRow> {
    let syntax = syntax_lines(text);
    let mut rows = HashMap::new();
    for line in text.lines() {
        let parts: Vec<&str> = line.split('|').collect();
        if parts.len() < 6 || line.starts_with('|') {
            continue;
        }
        let mn = parts[0].trim().to_string();
        let (format, opcode, fields) = parse_encoding(parts[1]);
        let latency = parts[2].trim().to_string();
        let flags = parts[parts.len() - 2].trim().to_string();
        let syn = syntax.get(&mn).cloned().unwrap_or_default();
        rows.insert(mn, (format, opcode, fields, latency, flags, syn));
    }
    rows
}

fn xlane_rows(text: &str) -> HashMap<String, SpecRow> {
    let syntax = syntax_lines(text);
    let mut names: Vec<&String> = syntax.keys().collect();
    names.sort_by_key(|n| std::cmp::Reverse(n.len()));
    let flag_words = ["xl", "wqm", "ei", "re", "ur", "fm"];
    let mut rows = HashMap::new();
    for line in text.lines() {
        let Some(at) = line.find(" op opcode=") else {
            continue;
        };
        let head = &line[..at];
        let (mn, format) = names
            .iter()
            .find_map(|n| {
                head.strip_prefix(n.as_str())
                    .map(|f| (n.to_string(), f.to_string()))
            })
            .expect("row names a known mnemonic");
        let rest = &line[at + 1..];
        let fixed = rest.find("fixed:").expect("latency");
        let (format2, opcode, fields) = parse_encoding(&format!("{format} {}", &rest[..fixed]));
        let lat_end = fixed
            + 6
            + rest[fixed + 6..]
                .chars()
                .take_while(char::is_ascii_digit)
                .count();
        let latency = rest[fixed..lat_end].to_string();
        // Flags trail the semantics without a separator: peel them off the end.
        let mut tail = rest[lat_end..].trim_end();
        let mut flags = Vec::new();
        while let Some(f) = flag_words.iter().find(|f| tail.ends_with(*f)) {
            flags.insert(0, *f);
            tail = tail[..tail.len() - f.len()].trim_end();
        }
        let syn = syntax[&mn].clone();
        rows.insert(mn, (format2, opcode, fields, latency, flags.join(" "), syn));
    }
    rows
}

#[test]
fn table_matches_the_spec_files() {
    let Some(dir) = spec_dir() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have ../shared/spec"
        );
        eprintln!("skipped: ../shared/spec is not present beside the repository");
        return;
    };
    let lsu = std::fs::read_to_string(dir.join("isa-group4-lsu.txt")).expect("read lsu spec");
    let xl = std::fs::read_to_string(dir.join("isa-group5-xlane.txt")).expect("read xlane spec");
    let mut spec = lsu_rows(&lsu);
    assert_eq!(spec.len(), 301, "the lsu chapter lists 301 rows");
    let x = xlane_rows(&xl);
    assert_eq!(x.len(), 37, "the xlane chapter lists 37 rows");
    spec.extend(x);
    let isa = Isa::get();
    let ours: Vec<_> = isa
        .defs()
        .iter()
        .filter(|d| d.row.origin == Origin::Spec)
        .collect();
    assert_eq!(ours.len(), 338);
    for d in ours {
        let r = d.row;
        let (format, opcode, fields, latency, flags, syntax) = spec
            .get(r.mnemonic)
            .unwrap_or_else(|| panic!("{} is not in the spec", r.mnemonic));
        assert_eq!(r.format, format, "{}: format", r.mnemonic);
        assert_eq!(r.opcode, *opcode, "{}: opcode", r.mnemonic);
        let ours: Vec<(String, u32)> = r.fields.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        assert_eq!(&ours, fields, "{}: function fields", r.mnemonic);
        assert_eq!(r.latency, latency, "{}: latency", r.mnemonic);
        assert_eq!(r.flags, flags, "{}: flags", r.mnemonic);
        assert_eq!(r.syntax, syntax, "{}: operands", r.mnemonic);
    }
}
