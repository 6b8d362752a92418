//! The source-level directives `.file N`, `.loc`, `.var` and `.endvar`: every accepted
//! form, the line table and variables they produce, the `.wko` object keeping them, and
//! a file:line:col error for every malformed form.

use wavedbg_emulator::asm::{assemble, AsmErrors, Diagnostic};
use wavedbg_emulator::program::{
    LineRange, LineRow, ObjectError, Program, SourceFile, VarLocation, VarType,
};

fn ok(src: &str) -> Program {
    assemble(src, "ok.s", None).unwrap_or_else(|e| panic!("rejected:\n{src}\n{e}"))
}

/// The only error of `src`.
fn one(src: &str) -> Diagnostic {
    match assemble(src, "e.s", None) {
        Ok(p) => panic!("accepted:\n{src}\n{p:?}"),
        Err(AsmErrors {
            mut diagnostics, ..
        }) => {
            assert_eq!(diagnostics.len(), 1, "{src:?}: {diagnostics:#?}");
            diagnostics.remove(0)
        }
    }
}

/// Checks an error's position, message and hint.
#[track_caller]
fn check(src: &str, line: u32, col: u32, message: &str, hint: &str) {
    let d = one(src);
    assert_eq!(
        (d.file.as_str(), d.line, d.col),
        ("e.s", line, col),
        "{d:#?}"
    );
    assert!(
        d.message.contains(message),
        "{:?} lacks {message:?}",
        d.message
    );
    let h = d.hint.as_deref().unwrap_or("");
    assert!(h.contains(hint), "hint {h:?} lacks {hint:?}");
    // The rendered form names file:line:col, as every assembler error does.
    assert!(d
        .to_string()
        .starts_with(&format!("e.s:{line}:{col}: error: ")));
}

fn row(addr: u64, line: u32, column: u32, is_stmt: bool, prologue_end: bool) -> LineRow {
    LineRow {
        addr,
        file: 1,
        line,
        column,
        is_stmt,
        prologue_end,
    }
}

#[test]
fn loc_rows_start_at_the_next_instruction_and_flags_follow_llvm() {
    let p = ok(r#"
    nop
    .file 1 "k.cl"
    .file 2 "/abs" "inc.h"
    .file 1 "k.cl"
    .loc 1 3
    nop
    nop
    .loc 1 4 7 prologue_end
    .loc 1 5 2 prologue_end is_stmt 0
    nop
    .loc 2 9 1
    .word 7
    .loc 1 0 0 is_stmt 1
    nop
    .loc 1 12
"#);
    let info = &p.source_info;
    assert_eq!(
        info.files,
        vec![
            SourceFile {
                number: 1,
                path: "k.cl".into()
            },
            SourceFile {
                number: 2,
                path: "/abs/inc.h".into()
            },
        ]
    );
    // The first nop has no row; a second .loc before an instruction replaces the first;
    // is_stmt carries over to later .locs until changed; a .loc after the last
    // instruction makes no row.
    let mut r2 = row(16, 9, 1, false, false);
    r2.file = 2;
    assert_eq!(
        info.rows,
        vec![
            row(4, 3, 0, true, false),
            row(12, 5, 2, false, true),
            r2,
            row(20, 0, 0, true, false)
        ]
    );
    let code = p.code_bytes();
    assert_eq!(info.row_at(0, code), None);
    assert_eq!(info.row_at(8, code).map(|r| r.line), Some(3));
    assert_eq!(info.row_at(24, code), None, "past the code");
    assert!(info.has_lines());
}

#[test]
fn line_ranges_give_one_location_per_stretch() {
    let p = ok(r#"
    .file 1 "k.cl"
    .loc 1 6 is_stmt 0
    nop
    .loc 1 6 is_stmt 1
    nop
    .loc 1 7
    nop
    .loc 1 6 3
    nop
    nop
    .loc 1 8 is_stmt 0
    nop
    .loc 1 6
    nop
"#);
    let c = p.code_bytes();
    let info = &p.source_info;
    assert_eq!(
        info.line_ranges(1, 6, c),
        vec![
            LineRange {
                start: 0,
                end: 8,
                stmt: Some(4)
            },
            LineRange {
                start: 12,
                end: 20,
                stmt: Some(12)
            },
            LineRange {
                start: 24,
                end: 28,
                stmt: None
            },
        ]
    );
    assert_eq!(info.line_ranges(1, 8, c)[0].stmt, None);
    assert!(info.line_ranges(1, 99, c).is_empty());
    assert!(info.line_ranges(2, 6, c).is_empty());
}

#[test]
fn var_every_location_and_type() {
    let p = ok(r#"
.buffer b, 64
.shared 64
.scratch 16
    .var r, v5
    .var s, u7, i32
    .var vp, v[4:5], f64
    .var up, u[2:3], u64
    .var g, global:b+56, f64
    .var g0, global:b
    .var sh, shared:0x10, f32
    .var sc, scratch:4, u64
    nop
    .endvar r
    nop
    .var s, v9
    nop
"#);
    let vars = &p.source_info.vars;
    let locs: Vec<(&str, &VarLocation, VarType, u64, u64)> = vars
        .iter()
        .map(|v| (v.name.as_str(), &v.location, v.ty, v.start, v.end))
        .collect();
    assert_eq!(
        locs,
        vec![
            ("r", &VarLocation::Vector(5), VarType::U32, 0, 4),
            ("s", &VarLocation::Uniform(7), VarType::I32, 0, 8),
            ("vp", &VarLocation::VectorPair(4), VarType::F64, 0, 12),
            ("up", &VarLocation::UniformPair(2), VarType::U64, 0, 12),
            (
                "g",
                &VarLocation::Global {
                    buffer: "b".into(),
                    offset: 56
                },
                VarType::F64,
                0,
                12
            ),
            (
                "g0",
                &VarLocation::Global {
                    buffer: "b".into(),
                    offset: 0
                },
                VarType::U32,
                0,
                12
            ),
            ("sh", &VarLocation::Shared(16), VarType::F32, 0, 12),
            ("sc", &VarLocation::Scratch(4), VarType::U64, 0, 12),
            ("s", &VarLocation::Vector(9), VarType::U32, 8, 12),
        ]
    );
    // A variable declared again moved: at 8 and after, `s` is the vector one.
    let live = p.source_info.live_vars(8);
    let s = live.iter().find(|v| v.name == "s").map(|v| &v.location);
    assert_eq!(s, Some(&VarLocation::Vector(9)));
    assert!(!live.iter().any(|v| v.name == "r"));
    assert_eq!(p.source_info.live_vars(0).len(), 8);
}

#[test]
fn buffer_file_directive_is_unchanged() {
    // `.file NAME, "PATH"` still reads a buffer's bytes (the name never starts with a digit).
    let d = one(".buffer b, 4\n.file b, \"missing.bin\"\nnop");
    assert!(d.message.contains("cannot read"), "{d:?}");
}

#[test]
fn file_errors() {
    let u = "usage: .file N [\"DIR\"] \"PATH\"";
    check(".file 1\nnop", 1, 1, "`.file 1` needs a quoted path", u);
    check(
        ".file 1 k.cl\nnop",
        1,
        9,
        "expected a quoted path, found `k.cl`",
        u,
    );
    check(".file 1 \"k.cl\nnop", 1, 9, "expected a quoted path", u);
    check(".file 1 \"\"\nnop", 1, 9, "the path is empty", u);
    check(
        ".file 1 \"a\" \"b\" \"c\"\nnop",
        1,
        9,
        "too many operands",
        u,
    );
    check(
        ".file 70000 \"k.cl\"\nnop",
        1,
        7,
        "file number 70000 is out of range",
        "0..=65535",
    );
    check(".file 1x \"k.cl\"\nnop", 1, 7, "bad file number `1x`", u);
    check(
        ".file 1 \"a.cl\"\n.file 1 \"b.cl\"\nnop",
        2,
        7,
        "file number 1 is already `a.cl`",
        "its own number",
    );
}

#[test]
fn loc_errors() {
    let u = "usage: .loc FILE LINE";
    check(".loc\nnop", 1, 1, "needs a file number and a line", u);
    check(
        ".file 1 \"k.cl\"\n.loc 1\nnop",
        2,
        6,
        "needs a file number and a line",
        u,
    );
    check(
        ".loc 3 4\nnop",
        1,
        6,
        "unknown file number 3",
        "declare it first with .file 3",
    );
    check(
        ".file 1 \"k.cl\"\n.file 2 \"h.cl\"\n.loc 3 4\nnop",
        3,
        6,
        "unknown file number 3",
        "declared file numbers: 1, 2",
    );
    check(".file 1 \"k.cl\"\n.loc 1 x\nnop", 2, 8, "bad line `x`", u);
    check(
        ".file 1 \"k.cl\"\n.loc 1 -3\nnop",
        2,
        8,
        "line -3 is out of range",
        u,
    );
    check(
        ".file 1 \"k.cl\"\n.loc 1 3000000000\nnop",
        2,
        8,
        "line 3000000000 is out of range",
        u,
    );
    check(
        ".file 1 \"k.cl\"\n.loc 1 3 -1\nnop",
        2,
        10,
        "column -1 is out of range",
        u,
    );
    check(
        ".file 1 \"k.cl\"\n.loc 1 3 4 prolog_end\nnop",
        2,
        12,
        "unknown `.loc` flag `prolog_end`",
        "did you mean `prologue_end`?",
    );
    check(
        ".file 1 \"k.cl\"\n.loc 1 3 epilogue\nnop",
        2,
        10,
        "unknown `.loc` flag `epilogue`",
        "did you mean `epilogue_begin`?",
    );
    check(
        ".file 1 \"k.cl\"\n.loc 1 3 is_stmt 2\nnop",
        2,
        18,
        "`is_stmt` takes 0 or 1, not `2`",
        u,
    );
    check(
        ".file 1 \"k.cl\"\n.loc 1 3 is_stmt\nnop",
        2,
        10,
        "`is_stmt` needs a value",
        u,
    );
}

#[test]
fn var_errors() {
    let u = "usage: .var NAME,";
    check(
        ".var x\nnop",
        1,
        6,
        "wrong number of operands for `.var`",
        u,
    );
    check(
        ".var x, v1, u32, 4\nnop",
        1,
        18,
        "wrong number of operands for `.var`",
        u,
    );
    check(
        ".var 1x, v1\nnop",
        1,
        6,
        "`1x` is not a valid variable name",
        "letters",
    );
    // A register's name would print the register, never the variable.
    for name in ["v3", "u0", "v999", "exec", "pc", "lane", "wave"] {
        check(
            &format!(".var {name}, v1\nnop"),
            1,
            6,
            &format!("`{name}` names a register: a variable cannot be called so"),
            "never variables",
        );
    }
    check(".var x, w1\nnop", 1, 9, "bad variable location `w1`", u);
    check(
        ".var x, v200\nnop",
        1,
        9,
        "register `v200` does not exist",
        "v0-v127 exist",
    );
    check(
        ".var x, u[63:64], u64\nnop",
        1,
        9,
        "register `u[63:64]` does not exist",
        "u0-u63 exist",
    );
    check(
        ".var x, v[4:7]\nnop",
        1,
        9,
        "one register or a pair, not 4",
        u,
    );
    check(".var x, v[5:4]\nnop", 1, 9, "bad register pair `v[5:4]`", u);
    check(
        ".var x, v1, f16\nnop",
        1,
        13,
        "unknown variable type `f16`",
        "u32 (the default), i32, f32, u64, f64",
    );
    check(
        ".var x, v1, u64\nnop",
        1,
        13,
        "v1 cannot hold a u64",
        "register pair",
    );
    check(
        ".var x, u[2:3]\nnop",
        1,
        9,
        "u[2:3] cannot hold a u32",
        "a register pair holds a u64 or an f64",
    );
    check(
        ".var x, v[2:3], f32\nnop",
        1,
        17,
        "v[2:3] cannot hold a f32",
        "register pair",
    );
    check(
        ".var x, global:nob+4\nnop",
        1,
        9,
        "unknown buffer `nob`",
        "declare it first",
    );
    check(
        ".buffer buf, 8\n.var x, global:buf+8\nnop",
        2,
        9,
        "offset 8 is outside buffer `buf` (8 bytes)",
        "a u32 takes 4 bytes",
    );
    check(
        ".buffer buf, 8\n.var x, global:buf+4, f64\nnop",
        2,
        9,
        "offset 4 is outside buffer `buf`",
        "8 bytes",
    );
    check(
        ".buffer buf, 8\n.var x, global:buf+y\nnop",
        2,
        9,
        "bad offset in `global:buf+y`",
        u,
    );
    check(".var x, shared:-4\nnop", 1, 9, "bad shared address `-4`", u);
    check(
        ".var x, scratch:zz\nnop",
        1,
        9,
        "bad scratch address `zz`",
        u,
    );
    check(".var x, local:4\nnop", 1, 9, "unknown memory `local`", u);
    // Shared and scratch variables inside the sizes `.shared` and `.scratch` give, which
    // may come after the `.var`: the error is at the `.var`, with both sizes.
    check(
        ".var x, shared:0x40\nnop",
        1,
        9,
        "variable `x`: shared:0x40 (a u32, 4 bytes) is outside the kernel's 0 bytes of shared memory per workgroup (.shared)",
        "`.shared BYTES` sets",
    );
    check(
        ".var x, shared:60, f64\n.shared 64\nnop",
        1,
        9,
        "variable `x`: shared:0x3c (a f64, 8 bytes) is outside the kernel's 64 bytes of shared memory per workgroup (.shared)",
        "`.shared BYTES` sets",
    );
    check(
        ".scratch 16\nnop\n  .var y, scratch:16\nnop",
        3,
        11,
        "variable `y`: scratch:0x10 (a u32, 4 bytes) is outside the kernel's 16 bytes of scratch per lane (.scratch)",
        "`.scratch BYTES` sets",
    );
    ok(".shared 64\n.scratch 16\n.var x, shared:60\n.var y, scratch:8, u64\nnop");
}

#[test]
fn endvar_errors() {
    check(
        ".endvar x\nnop",
        1,
        9,
        "`.endvar` of unknown variable `x`",
        "no variable is live here",
    );
    check(
        ".var count, v1\n.endvar cnt\nnop",
        2,
        9,
        "`.endvar` of unknown variable `cnt`",
        "did you mean count?",
    );
    check(
        ".var count, v1\n.endvar zzzzzz\nnop",
        2,
        9,
        "unknown variable `zzzzzz`",
        "live variables: count",
    );
    check(
        ".var x, v1\n.endvar x\n.endvar x\nnop",
        3,
        9,
        "unknown variable `x`",
        "no variable is live",
    );
    check(
        ".endvar\nnop",
        1,
        1,
        "wrong number of operands for `.endvar`",
        "usage: .endvar NAME",
    );
}

#[test]
fn directive_hints_know_the_new_names() {
    check(".lco 1 2\nnop", 1, 1, "unknown directive `.lco`", ".loc");
    check(
        ".endvr x\nnop",
        1,
        1,
        "unknown directive `.endvr`",
        ".endvar",
    );
}

#[test]
fn object_keeps_source_info_and_old_objects_load() {
    let p = ok(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../scripts/saxpy_src.s"
        ))
        .unwrap(), // .iota/.fill/.arg need nothing from disk; only the buffer form of .file would.
    );
    assert!(p.source_info.has_lines());
    let text = p.to_object().unwrap();
    assert!(text.contains("source_info"), "{text}");
    let back = Program::from_object(&text).unwrap();
    assert_eq!(back, p);
    assert_eq!(back.to_object().unwrap(), text);
    // A version 2 object (no source_info) still loads, with none.
    let mut plain = ok("nop\nend");
    let v2 = plain
        .to_object()
        .unwrap()
        .replace("format_version: 3", "format_version: 2");
    let v2 = v2.replace(
        "    source_info: (\n        files: [],\n        rows: [],\n        vars: [],\n    ),\n",
        "",
    );
    assert!(!v2.contains("source_info"), "{v2}");
    let old = Program::from_object(&v2).unwrap();
    plain.format_version = old.format_version;
    assert_eq!(old, plain);
}

#[test]
fn hostile_objects_are_refused() {
    let p = ok(".file 1 \"k.cl\"\n.loc 1 2\n.var x, v1\nnop\nnop");
    let text = p.to_object().unwrap();
    for (from, to, what) in [
        ("addr: 0,", "addr: 400,", "not in address order"),
        ("file: 1,", "file: 9,", "names file number 9"),
        ("Vector(1)", "Vector(200)", "register v200 does not exist"),
        ("end: 8", "end: 80", "not inside the code"),
        ("ty: U32", "ty: U64", "v1 cannot hold a u64"),
        (
            "Vector(1)",
            "Shared(8)",
            "variable `x`: shared:0x8 (a u32, 4 bytes) is outside the kernel's 0 bytes of shared memory",
        ),
        (
            "Vector(1)",
            "Scratch(0)",
            "variable `x`: scratch:0x0 (a u32, 4 bytes) is outside the kernel's 0 bytes of scratch per lane",
        ),
    ] {
        let bad = text.replace(from, to);
        assert_ne!(bad, text, "{from}");
        match Program::from_object(&bad) {
            Err(e @ ObjectError::Invalid(_)) => {
                assert!(e.to_string().contains(what), "{e}")
            }
            other => panic!("{from}: {other:?}"),
        }
    }
}

/// The options LLVM emits are accepted and set aside: `.loc`'s `epilogue_begin`,
/// `discriminator N`, `isa N`, `view N`; `.file`'s DWARF 5 `md5 0x...` and
/// `source "..."` (DIR joins NAME); malformed ones are errors.
#[test]
fn llvm_options_of_file_and_loc_are_accepted() {
    let p = ok(
        ".file 0 \"/d\" \"a.cl\" md5 0x00112233445566778899aabbccddeeff\n\
         .file 1 \"b.cl\" md5 0x00112233445566778899AABBCCDDEEFF source \"x; \\\"y\\\"\"\n\
         .loc 0 1 3 discriminator 2 isa 1 view 0\n vmovi v1, 0\n\
         .loc 1 2 3 epilogue_begin view .LVU3\n end\n",
    );
    let paths: Vec<&str> = p
        .source_info
        .files
        .iter()
        .map(|f| f.path.as_str())
        .collect();
    assert_eq!(paths, ["/d/a.cl", "b.cl"]);
    assert_eq!(p.source_info.rows.len(), 2);
    let e = one(".file 1 \"a.cl\" md5 0x12\n end\n");
    assert!(
        e.message.contains("`md5` takes a 128-bit hex number"),
        "{}",
        e.message
    );
    let e = one(".file 1 \"a.cl\"\n.loc 1 2 discriminator x\n end\n");
    assert!(
        e.message
            .contains("`discriminator` takes a number, not `x`"),
        "{}",
        e.message
    );
}
