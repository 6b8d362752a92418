//! Assembler diagnostics (file:line:col, message, hint, rendering) for malformed input, and
//! the assembler's positive behaviour: labels, comments, number syntaxes, cache-policy
//! names, optional operands, directives and the `.wko` object container.

use std::path::{Path, PathBuf};

use wavedbg_emulator::asm::{assemble, assemble_file, AsmErrors, Diagnostic};
use wavedbg_emulator::isa::{Instr, Isa};
use wavedbg_emulator::program::{
    ArgDef, ArgValue, BufferDef, LaunchConfig, ObjectError, Program, OBJECT_FORMAT_VERSION,
};

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

fn ok(src: &str) -> Program {
    assemble(src, "ok.s", None).unwrap_or_else(|e| panic!("rejected:\n{src}\n{e}"))
}

fn errors(src: &str) -> Vec<Diagnostic> {
    match assemble(src, "e.s", None) {
        Ok(p) => panic!("accepted:\n{src}\n{p:?}"),
        Err(AsmErrors { diagnostics, .. }) => diagnostics,
    }
}

/// The only error of `src`.
fn one(src: &str) -> Diagnostic {
    let mut v = errors(src);
    assert_eq!(v.len(), 1, "expected one error for {src:?}, got {v:#?}");
    v.remove(0)
}

/// Checks an error's position and the text of its message and hint.
#[track_caller]
fn check(d: &Diagnostic, line: u32, col: u32, message: &str, hint: Option<&str>) {
    assert_eq!(d.file, "e.s", "{d:#?}");
    assert_eq!((d.line, d.col), (line, col), "position of {d:#?}");
    assert!(
        d.message.contains(message),
        "message {:?} lacks {message:?}",
        d.message
    );
    if let Some(h) = hint {
        let got = d
            .hint
            .as_deref()
            .unwrap_or_else(|| panic!("no hint: {d:#?}"));
        assert!(got.contains(h), "hint {got:?} lacks {h:?}");
    }
}

/// The error's underlined text (from its source line, column and length).
fn underlined(d: &Diagnostic) -> String {
    d.source_line
        .chars()
        .skip(d.col as usize - 1)
        .take(d.len as usize)
        .collect()
}

fn decode_at(p: &Program, addr: u64) -> Instr {
    Instr::decode(&p.code[addr as usize / 4..]).unwrap()
}

fn id(m: &str) -> u16 {
    Isa::get().lookup(m).unwrap()
}

/// A fresh scratch directory for `.file` tests.
fn scratch_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wavedbg-asm-errors-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

// ---------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------

#[test]
fn unknown_mnemonic_hints_the_nearest() {
    let d = one("nop\n  ld.globl.b32 v1, v[2:3]\n");
    check(
        &d,
        2,
        3,
        "unknown mnemonic `ld.globl.b32`",
        Some("`ld.global.b32`"),
    );
    assert_eq!(underlined(&d), "ld.globl.b32");
    // The nearest comes first.
    assert!(d
        .hint
        .as_deref()
        .unwrap()
        .starts_with("did you mean `ld.global.b32`"));

    let d = one("vad.u32 v1, v2, v3");
    check(&d, 1, 1, "unknown mnemonic `vad.u32`", Some("`vadd.u32`"));
    let d = one("shfl.idxx v1, v2, v3");
    check(&d, 1, 1, "`shfl.idxx`", Some("`shfl.idx`"));
    let d = one("writelan v1, u2, 3");
    check(&d, 1, 1, "`writelan`", Some("`writelane`"));
}

#[test]
fn wrong_register_file() {
    let d = one("vadd.u32 v1, u2, v3");
    check(
        &d,
        1,
        14,
        "expected a vector register, found `u2`",
        Some("rs1:v"),
    );
    assert!(d
        .hint
        .as_deref()
        .unwrap()
        .contains("vadd.u32 rd:v rs1:v rs2:v"));
    assert_eq!(underlined(&d), "u2");

    let d = one("readfirst v1, v2");
    check(
        &d,
        1,
        11,
        "expected a uniform register, found `v1`",
        Some("rd:u"),
    );

    let d = one("shfl.idx.vu v1, v2, v3");
    check(&d, 1, 1, "unknown mnemonic", None);
    let d = one("shfl.xor.vu v1, v2, v3");
    check(
        &d,
        1,
        21,
        "expected a uniform register, found `v3`",
        Some("rs2:u"),
    );

    // Tuples of the wrong file, too.
    let d = one("ld.ubase.b32 v1, v[2:3], v4");
    check(&d, 1, 18, "expected 2 consecutive uniform registers", None);
}

#[test]
fn wrong_operand_kind() {
    let d = one("vmov v1, 5");
    check(&d, 1, 10, "expected a vector register, found `5`", None);
    let d = one("shfl.up.vi v1, v2, v3");
    check(
        &d,
        1,
        20,
        "expected an immediate (s8), found `v3`",
        Some("-128..=127"),
    );
    let d = one("ld.shared.b32 v1, v2, glc");
    check(&d, 1, 23, "expected an immediate (s24), found `glc`", None);
    let d = one("br 12");
    check(&d, 1, 4, "undefined label `12`", None);
}

#[test]
fn out_of_range_immediates_show_the_range() {
    // (source, column, message, hint)
    let cases = [
        (
            "ld.shared.b32 v1, v2, 8388608",
            23,
            "immediate 8388608 is out of range for s24",
            "allowed range: -8388608..=8388607",
        ),
        (
            "ld.global.b32 v1, v[2:3], -8388609",
            27,
            "immediate -8388609 is out of range for s24",
            "-8388608..=8388607",
        ),
        (
            "shfl.up.vi v1, v2, 128",
            20,
            "immediate 128 is out of range for s8",
            "allowed range: -128..=127",
        ),
        (
            "shfl.rot.vi v1, v2, -129",
            21,
            "immediate -129 is out of range for s8",
            "-128..=127",
        ),
        (
            "quad.swizzle v1, v2, 256",
            22,
            "immediate 256 is out of range for u8",
            "allowed range: 0..=255",
        ),
        (
            "readlane u1, v2, -1",
            18,
            "immediate -1 is out of range for u8",
            "0..=255",
        ),
        (
            "writelane v1, u2, 128",
            19,
            "immediate 128 is out of range for ln7",
            "allowed range: 0..=127",
        ),
        (
            "writelane v1, u2, -1",
            19,
            "out of range for ln7",
            "0..=127",
        ),
        ("wait.vm 64", 9, "out of range for u6", "0..=63"),
        ("trap 16384", 6, "out of range for u14", "0..=16383"),
        (
            "umovi u1, 0x100000000",
            11,
            "out of range for b32",
            "-2147483648..=4294967295",
        ),
        (
            "vmovi v1, -2147483649",
            11,
            "out of range for b32",
            "-2147483648..=4294967295",
        ),
    ];
    for (src, col, msg, hint) in cases {
        let d = one(src);
        check(&d, 1, col, msg, Some(hint));
    }
    // The extremes themselves are fine.
    ok(
        "ld.shared.b32 v1, v2, 8388607\nld.shared.b32 v1, v2, -8388608\n\
        shfl.up.vi v1, v2, 127\nshfl.up.vi v1, v2, -128\nquad.swizzle v1, v2, 255\n\
        writelane v1, u2, 127\nwait.vm 63\ntrap 16383\numovi u1, -2147483648\n\
        vmovi v1, 0xffffffff",
    );
}

#[test]
fn branch_reach_and_alignment() {
    // rel14: +-8192 words.
    let d = one("br .+32768");
    check(&d, 1, 4, "beyond the", None);
    assert!(d.message.contains("32768"), "{d:#?}");
    let p = ok("br .+32764\nbr .-32768");
    assert_eq!(decode_at(&p, 0).imm, 8191);
    assert_eq!(decode_at(&p, 4).imm, -8192);
    let d = one("nop\nbr .-32772");
    check(&d, 2, 4, "beyond the", None);
    let d = one("br .+2");
    check(&d, 1, 4, "not 4-byte aligned", None);
    let d = one("br .+x");
    check(&d, 1, 4, "bad relative target `.+x`", Some(".+N"));
}

#[test]
fn bad_tuples() {
    let d = one("ld.global.b32 v1, v[2:4]");
    check(
        &d,
        1,
        19,
        "bad tuple `v[2:4]`: this operand takes 2 registers",
        Some("write v[2:3]"),
    );
    assert_eq!(underlined(&d), "v[2:4]");

    let d = one("ld.global.b32 v1, v[5:4]");
    check(&d, 1, 19, "bad register tuple `v[5:4]`", Some("ascending"));

    let d = one("ld.global.b32 v1, v[1:");
    check(&d, 1, 19, "bad register tuple `v[1:`", Some("v[4:5]"));
    assert_eq!(underlined(&d), "v[1:");

    let d = one("ld.global.b32 v1, v[1:2");
    check(&d, 1, 19, "bad register tuple", None);
    let d = one("ld.global.b32 v1, v[a:b]");
    check(&d, 1, 19, "bad register tuple", None);

    let d = one("vmov v[1:2], v3");
    check(&d, 1, 6, "this operand takes 1 register", Some("e.g. v1"));

    let d = one("uld.b128 u[0:2], u[4:5]");
    check(
        &d,
        1,
        10,
        "this operand takes 4 registers",
        Some("write u[0:3]"),
    );
}

#[test]
fn registers_past_the_end() {
    let d = one("ld.global.b128 v[126:129], v[0:1]");
    check(
        &d,
        1,
        16,
        "register `v[126:129]` does not exist",
        Some("v0-v127 exist; this operand needs 4 consecutive registers"),
    );
    assert_eq!(underlined(&d), "v[126:129]");

    // A b128 destination written as its first register.
    let d = one("ld.global.b128 v126, v[0:1]");
    check(&d, 1, 16, "`v126` does not exist", Some("4 consecutive"));
    // ... which fits at v124.
    let p = ok("ld.global.b128 v124, v[0:1]");
    assert_eq!(decode_at(&p, 0).rd, 124);

    let d = one("vmov v128, v1");
    check(&d, 1, 6, "`v128` does not exist", Some("v0-v127"));
    let d = one("umov u64, u1");
    check(&d, 1, 6, "`u64` does not exist", Some("u0-u63"));
    let d = one("uld.b512 u[60:75], u[0:1]");
    check(
        &d,
        1,
        10,
        "does not exist",
        Some("u0-u63 exist; this operand needs 16"),
    );
    let d = one("ld.buf.b32 v1, u[61:64], v2");
    check(&d, 1, 16, "does not exist", Some("4 consecutive"));
    let d = one("ld.global.b32 v1, v127");
    check(&d, 1, 19, "`v127` does not exist", Some("2 consecutive"));
    // The largest that fit.
    ok("ld.buf.b32 v1, u[60:63], v2\nuld.b512 u[48:63], u[62:63]\nld.global.b96 v[125:127], v[126:127]");
}

#[test]
fn undefined_label_hints_the_nearest() {
    let d = one("loop: nop\n  br lopo\n");
    check(
        &d,
        2,
        6,
        "undefined label `lopo`",
        Some("did you mean `loop`?"),
    );
    assert_eq!(underlined(&d), "lopo");

    let d = one("br nowhere");
    check(
        &d,
        1,
        4,
        "undefined label `nowhere`",
        Some("no labels are defined"),
    );

    let d = one("done: end\nbr.uz u1, dome");
    check(&d, 2, 11, "undefined label `dome`", Some("`done`"));
}

#[test]
fn duplicate_label() {
    let d = one("a: nop\nb: nop\n  a: nop");
    check(
        &d,
        3,
        3,
        "label `a` is defined twice",
        Some("first defined on line 1"),
    );
    // The first definition wins... and the program is rejected.
    let d = one("x:\nx: nop");
    check(&d, 2, 1, "`x` is defined twice", Some("line 1"));
}

#[test]
fn operand_count() {
    let d = one("vadd.u32 v1, v2");
    check(
        &d,
        1,
        1,
        "`vadd.u32` expects 3 operands, found 2",
        Some("vadd.u32 rd:v rs1:v rs2:v"),
    );
    let d = one("vadd.u32 v1, v2, v3, v4");
    check(
        &d,
        1,
        22,
        "expects 3 operands, found 4",
        Some("rd:v rs1:v rs2:v"),
    );
    assert_eq!(underlined(&d), "v4");
    let d = one("nop v1");
    check(
        &d,
        1,
        5,
        "`nop` expects 0 operands, found 1",
        Some("takes no operands"),
    );
    let d = one("ld.global.b32 v1");
    check(
        &d,
        1,
        1,
        "expects 2 to 4 operands, found 1",
        Some("imm:s24 cpol:cpol"),
    );
    let d = one("ld.global.b32 v1, v[2:3], 0, glc, 5");
    check(&d, 1, 35, "expects 2 to 4 operands, found 5", None);
    let d = one("writelane v1, u2");
    check(&d, 1, 1, "expects 3 operands, found 2", Some("rs1:ln7"));
    let d = one("umovi u1");
    check(&d, 1, 1, "expects 2 operands, found 1", None);
    // An empty operand between commas is reported where it is.
    let d = one("vadd.u32 v1,, v3");
    check(&d, 1, 13, "found ``", None);
}

#[test]
fn bad_cache_policy() {
    let d = one("ld.global.b32 v1, v[2:3], 0, foo");
    check(&d, 1, 30, "bad cache policy `foo`", Some("glc, slc, nt"));
    let d = one("ld.global.b32 v1, v[2:3], 0, 8");
    check(&d, 1, 30, "bad cache policy `8`", Some("0-7"));
    let d = one("ld.global.b32 v1, v[2:3], 0, glc foo");
    check(&d, 1, 30, "bad cache policy", None);
}

#[test]
fn unknown_directive() {
    let d = one(".kernal foo");
    check(&d, 1, 1, "unknown directive `.kernal`", Some(".kernel"));
    let d = one("  .bufer b, 4");
    check(&d, 1, 3, "unknown directive `.bufer`", Some(".buffer"));
    let d = one(".zzzzzzzzzz");
    check(&d, 1, 1, "unknown directive", Some(".workgroup"));
}

#[test]
fn directive_values() {
    let d = one(".workgroup 48");
    check(
        &d,
        1,
        12,
        "workgroup size 48 is not a multiple of 32",
        Some("whole 32-lane waves"),
    );
    let d = one(".workgroup 2048");
    check(&d, 1, 12, "2048 is out of range", Some("32..=1024"));
    let d = one(".workgroup 0");
    check(&d, 1, 12, "out of range", Some("32..=1024"));
    let d = one(".grid 0");
    check(&d, 1, 7, "out of range", Some("1..="));
    let d = one(".shared 1048577");
    check(&d, 1, 9, "out of range", Some("0..=1048576"));
    let d = one(".scratch 65537");
    check(&d, 1, 10, "out of range", Some("0..=65536"));
    let d = one(".grid many");
    check(
        &d,
        1,
        7,
        "expected a number, found `many`",
        Some(".grid WORKGROUPS"),
    );
    let d = one(".kernel 9lives");
    check(&d, 1, 9, "not a valid kernel name", None);
    let d = one(".grid 1, 2");
    check(
        &d,
        1,
        10,
        "wrong number of operands for `.grid`",
        Some("usage: .grid"),
    );
    let d = one(".buffer b");
    check(
        &d,
        1,
        9,
        "wrong number of operands for `.buffer`",
        Some(".buffer NAME, BYTES"),
    );
    let d = one(".buffer b, 0");
    check(&d, 1, 12, "out of range", Some("1..=1073741824"));
    let d = one(".buffer b, 4\n.buffer b, 8");
    check(&d, 2, 9, "buffer `b` is declared twice", None);
    let d = one(".buffer 1b, 4");
    check(&d, 1, 9, "not a valid buffer name", None);
    let d = one(".word 0x100000000");
    check(&d, 1, 7, "not a 32-bit value", Some(".word VALUE"));
}

#[test]
fn init_errors() {
    let d = one(".buffer b, 4\n.init b, u32, 1, 2");
    check(
        &d,
        2,
        7,
        "initial contents overflow buffer `b`",
        Some("holds 4 bytes; 0 are already initialised and this adds 8"),
    );
    // Overflow across several directives.
    let d = one(".buffer b, 6\n.init b, u32, 1\n.fill b, u16, 0, 2");
    check(
        &d,
        3,
        7,
        "overflow buffer `b`",
        Some("4 are already initialised and this adds 4"),
    );
    let d = one(".buffer b, 3\n.iota b, u8, 4");
    check(&d, 2, 7, "overflow", None);
    let d = one(".init nob, u8, 1");
    check(
        &d,
        1,
        7,
        "unknown buffer `nob`",
        Some(".buffer NAME, BYTES"),
    );
    let d = one(".buffer data, 4\n.init dta, u8, 1");
    check(&d, 2, 7, "unknown buffer `dta`", Some("data"));
    let d = one(".buffer b, 4\n.init b, u7, 1");
    check(
        &d,
        2,
        10,
        "unknown element type `u7`",
        Some("u8 u16 u32 i32 u64 f32"),
    );
    let d = one(".buffer b, 4\n.init b, u8, 256");
    check(&d, 2, 14, "`256` is not a valid u8 value", None);
    let d = one(".buffer b, 4\n.init b, u16, 65536");
    check(&d, 2, 15, "not a valid u16 value", None);
    let d = one(".buffer b, 4\n.init b, f32, pi");
    check(&d, 2, 15, "not a valid f32 value", None);
    let d = one(".buffer b, 4\n.fill b, u8, 1");
    check(
        &d,
        2,
        14,
        "wrong number of operands for `.fill`",
        Some("COUNT"),
    );
    let d = one(".buffer b, 4\n.iota b, u8, x");
    check(&d, 2, 14, "expected a number", None);
    let d = one(".buffer b, 4\n.init b, u8");
    check(&d, 2, 10, "wrong number of operands for `.init`", None);
}

#[test]
fn arg_errors() {
    let d = one(".buffer data, 16\n.arg u[0:1], dat\nnop");
    check(&d, 2, 14, "unknown buffer `dat`", Some("data"));
    let d = one(".arg u[4:7], desc nothing");
    check(
        &d,
        1,
        14,
        "unknown buffer `nothing`",
        Some(".buffer NAME, BYTES"),
    );
    let d = one(".arg v1, 5");
    check(&d, 1, 6, "expected uniform register(s), found `v1`", None);
    let d = one(".arg u[0:2], 5");
    check(&d, 1, 6, "this argument fills 1 register, not 3", None);
    let d = one(".buffer b, 4\n.arg u[0:2], b");
    check(&d, 2, 6, "fills 2 registers, not 3", Some("u[0:1]"));
    let d = one(".arg u0, 1\n.arg u0, 2");
    check(&d, 2, 6, "overlap the argument at u0", None);
    let d = one(".buffer b, 4\n.arg u[2:3], b\n.arg u[0:3], desc b");
    check(&d, 3, 6, "overlap the argument at u2", None);
    let d = one(".arg u64, 1");
    check(&d, 1, 6, "do not exist", Some("u0-u63"));
    let d = one(".arg u0, 0x100000000");
    check(&d, 1, 10, "does not fit in 32 bits", None);
    let d = one(".arg u0, [x]");
    check(&d, 1, 10, "neither a buffer name nor a number", None);
}

#[test]
fn file_directive_errors() {
    let dir = scratch_dir("missing");
    let src = ".buffer b, 16\n.file b, \"no-such-file.bin\"";
    let e = assemble(src, "e.s", Some(&dir)).unwrap_err().diagnostics;
    assert_eq!(e.len(), 1);
    check(&e[0], 2, 10, "cannot read", None);
    assert!(e[0].message.contains("no-such-file.bin"), "{:?}", e[0]);
    let d = one(".buffer b, 16\n.file b, no-quotes.bin");
    check(&d, 2, 10, "expected a quoted path", None);
    let d = one(".file nob, \"x.bin\"");
    check(&d, 1, 7, "unknown buffer `nob`", None);
    // Too big for the buffer.
    std::fs::write(dir.join("big.bin"), [7u8; 20]).unwrap();
    let e = assemble(".buffer b, 16\n.file b, \"big.bin\"", "e.s", Some(&dir))
        .unwrap_err()
        .diagnostics;
    check(&e[0], 2, 10, "overflow buffer `b`", Some("adds 20"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_error_of_a_file_is_reported() {
    let src = "\
.kernel k
vmov v1, v2
foo v1
.bogus 3
vmov u1, v2
  br nowhere
.arg u0, nobuf
.workgroup 48
ld.global.b32 v1, v[2:4]
a: nop
a: nop
vadd.u32 v1, v2
";
    let e = errors(src);
    let mut at: Vec<(u32, u32)> = e.iter().map(|d| (d.line, d.col)).collect();
    at.sort();
    assert_eq!(
        at,
        vec![
            (3, 1),
            (4, 1),
            (5, 6),
            (6, 6),
            (7, 10),
            (8, 12),
            (9, 19),
            (11, 1),
            (12, 1)
        ],
        "{e:#?}"
    );
    let rendered = AsmErrors {
        diagnostics: e.clone(),
        more: 0,
    }
    .to_string();
    assert!(rendered.ends_with("9 errors"), "{rendered}");
    for d in &e {
        assert!(rendered.contains(&format!("e.s:{}:{}: error: ", d.line, d.col)));
    }
}

#[test]
fn display_shows_the_line_and_a_caret() {
    let d = one("nop\nvmov u2, v1");
    assert_eq!(
        d.to_string(),
        "e.s:2:6: error: expected a vector register, found `u2`\n  \
         |\n\
         2 | vmov u2, v1\n  \
         |      ^^\n  \
         = hint: operand `rd:v` expects a vector register; usage: vmov rd:v rs1:v"
    );
    // The caret sits under the column in the rendered line.
    let rendered = d.to_string();
    let lines: Vec<&str> = rendered.lines().collect();
    let src_col = lines[2].find("u2").unwrap();
    assert_eq!(lines[3].find('^').unwrap(), src_col);
}

#[test]
fn display_without_hint_and_with_wide_line_numbers() {
    let src = format!("{}.buffer b, 4\n.buffer b, 4", "\n".repeat(99));
    let d = one(&src);
    assert_eq!(d.line, 101);
    assert_eq!(d.hint, None);
    assert_eq!(
        d.to_string(),
        "e.s:101:9: error: buffer `b` is declared twice\n    |\n101 | .buffer b, 4\n    |         ^"
    );
}

#[test]
fn caret_columns_count_characters_and_tabs() {
    // A tab is one column and is rendered as one space, so the caret stays aligned.
    let d = one("\tvmov u2, v1");
    assert_eq!(d.col, 7);
    let r = d.to_string();
    let lines: Vec<&str> = r.lines().collect();
    assert_eq!(lines[2], "1 |  vmov u2, v1");
    assert_eq!(lines[3].find('^'), lines[2].find("u2"));

    // Multi-byte characters count once (outside quotes, a non-ASCII character is itself
    // the error).
    let d = one("vmov é, u2");
    check(&d, 1, 6, "U+00E9", None);
    assert_eq!(underlined(&d), "é");
    let d = one(".buffer b, 4\n.file b, \"é\", u2");
    check(&d, 2, 15, "wrong number of operands", None);
    assert_eq!(underlined(&d), "u2");
    let r = d.to_string();
    let lines: Vec<&str> = r.lines().collect();
    assert_eq!(
        lines[3].chars().position(|c| c == '^'),
        lines[2].chars().position(|c| c == 'u')
    );
}

#[test]
fn errors_after_a_comment_or_label_have_the_right_column() {
    let d = one("loop:   vmov u2, v1 ; comment v9");
    check(&d, 1, 14, "found `u2`", None);
    let d = one("a: b: readfirst v1, v2 // x");
    check(&d, 1, 17, "found `v1`", None);
    assert!(d.source_line.ends_with("// x"), "the whole line is shown");
}

// ---------------------------------------------------------------------------------------
// Positive behaviour
// ---------------------------------------------------------------------------------------

#[test]
fn labels_and_branches() {
    let p = ok("\
start:
    nop
    umovi u1, 3          ; 64-bit
loop: back:
    usub u1, u1, u2
    br.unz u1, loop
    br done
    nop
done: end
after:
");
    assert_eq!(p.labels["start"], 0);
    assert_eq!(p.labels["loop"], 12);
    assert_eq!(p.labels["back"], 12);
    assert_eq!(p.labels["done"], 28);
    assert_eq!(p.labels["after"], 32);
    assert_eq!(p.code.len(), 8);
    // br.unz at 16 -> 12: -1 word; br at 20 -> 28: +2 words.
    let b = decode_at(&p, 16);
    assert_eq!(b.id, id("br.unz"));
    assert_eq!(b.imm, -1);
    assert_eq!(b.rs1, 1);
    assert_eq!(b.branch_target(16), Some(12));
    let f = decode_at(&p, 20);
    assert_eq!(f.imm, 2);
    assert_eq!(p.label_at(12), Some("back"));
    assert_eq!(p.label_at(4), None);
    // Each instruction's source line.
    assert_eq!(p.line_at(0), Some(2));
    assert_eq!(p.line_at(4), Some(3));
    assert_eq!(p.line_at(8), None, "the second word of umovi");
    assert_eq!(p.line_at(28), Some(9));
    // Relative targets.
    let q = ok("nop\nbr .-4\nbr .+0\nbr .+8");
    assert_eq!(decode_at(&q, 4).imm, -1);
    assert_eq!(decode_at(&q, 8).imm, 0);
    assert_eq!(decode_at(&q, 12).imm, 2);
    // Label characters.
    let r = ok("$x.y_z9: nop\n_a: nop\nA.b$: nop");
    assert_eq!(r.labels.len(), 3);
    assert_eq!(r.labels["A.b$"], 8);
}

#[test]
fn comments() {
    let p = ok("\
; a whole-line comment
// another
    nop ; trailing
    nop // trailing too
label: ; a label then a comment
    vmov v1, v2;no space
    vmov v3, v4//no space
    ;
");
    assert_eq!(p.code.len(), 4);
    assert_eq!(p.labels["label"], 8);
    assert_eq!(decode_at(&p, 12).rd, 3);
    // A `;` in a quoted path is not a comment.
    let dir = scratch_dir("semicolon");
    std::fs::write(dir.join("a;b.bin"), [1u8, 2, 3]).unwrap();
    let p = assemble(
        ".buffer b, 4\n.file b, \"a;b.bin\" ; comment\nend",
        "x.s",
        Some(&dir),
    )
    .unwrap();
    assert_eq!(p.buffers[0].init, vec![1, 2, 3]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn integer_syntaxes() {
    let p = ok("\
ld.shared.b32 v1, v2, 0x10
ld.shared.b32 v1, v2, 0X1f
ld.shared.b32 v1, v2, 0b101
ld.shared.b32 v1, v2, -0x10
ld.shared.b32 v1, v2, -8
ld.shared.b32 v1, v2, +7
ld.shared.b32 v1, v2, 1_000
ld.shared.b32 v1, v2, -0b11
");
    let imms: Vec<i64> = (0..8).map(|i| decode_at(&p, i * 8).imm).collect();
    assert_eq!(imms, vec![16, 31, 5, -16, -8, 7, 1000, -3]);
    let p = ok("shfl.up.vi v1, v2, -1\nquad.swizzle v1, v2, 0xe4\nwritelane v1, u2, 0x7f");
    assert_eq!(decode_at(&p, 0).imm, -1);
    assert_eq!(decode_at(&p, 4).imm, 0xe4);
    assert_eq!(decode_at(&p, 8).rs1, 127);
    let d = one("ld.shared.b32 v1, v2, 12abc");
    check(
        &d,
        1,
        23,
        "expected an immediate (s24), found `12abc`",
        None,
    );
}

#[test]
fn float_immediates() {
    let p = ok("\
vmovi v1, 1.5
umovi u2, -2.0
vmovi v3, 1e3
umovi u4, inf
vmovi v5, -0.0
vaddi.f32 v6, v7, 0.1
vmovi v8, 3
vmovi v9, -1
");
    let imm = |a: u64| decode_at(&p, a).imm as u32;
    assert_eq!(imm(0), 1.5f32.to_bits());
    assert_eq!(imm(8), (-2.0f32).to_bits());
    assert_eq!(imm(16), 1000.0f32.to_bits());
    assert_eq!(imm(24), f32::INFINITY.to_bits());
    assert_eq!(imm(32), (-0.0f32).to_bits());
    assert_eq!(imm(40), 0.1f32.to_bits());
    // Integers stay integers.
    assert_eq!(imm(48), 3);
    assert_eq!(imm(56), u32::MAX);
    // Not for other immediates.
    let d = one("ld.shared.b32 v1, v2, 1.5");
    check(&d, 1, 23, "expected an immediate (s24), found `1.5`", None);
}

#[test]
fn cache_policy_names() {
    let cpol = |src: &str| decode_at(&ok(src), 0).cpol;
    assert_eq!(cpol("ld.global.b32 v1, v[2:3], 0, glc slc nt"), 7);
    assert_eq!(cpol("ld.global.b32 v1, v[2:3], 0, glc"), 1);
    assert_eq!(cpol("ld.global.b32 v1, v[2:3], 0, slc"), 2);
    assert_eq!(cpol("ld.global.b32 v1, v[2:3], 0, nt"), 4);
    assert_eq!(cpol("ld.global.b32 v1, v[2:3], 0, nt glc"), 5);
    assert_eq!(cpol("ld.global.b32 v1, v[2:3], 0, glc|nt"), 5);
    assert_eq!(cpol("ld.global.b32 v1, v[2:3], 0, 6"), 6);
    assert_eq!(cpol("st.ubase.b32 v1, u[2:3], v4, -4, slc nt"), 6);
    assert_eq!(cpol("uld.b32 u1, u[2:3], 8, glc"), 1);
    // The text writer uses the names in bit order.
    let i = decode_at(&ok("ld.global.b32 v1, v[2:3], 0, nt slc glc"), 0);
    assert_eq!(i.text(0), "ld.global.b32 v1, v[2:3], 0, glc slc nt");
}

#[test]
fn optional_trailing_immediate_and_cache_policy() {
    let a = ok("ld.global.b32 v1, v[2:3]");
    let b = ok("ld.global.b32 v1, v[2:3], 0");
    let c = ok("ld.global.b32 v1, v[2:3], 0, 0");
    assert_eq!(a.code, b.code);
    assert_eq!(a.code, c.code);
    let i = decode_at(&ok("ld.global.b32 v1, v[2:3], -4"), 0);
    assert_eq!((i.imm, i.cpol), (-4, 0));
    let i = decode_at(&ok("ld.shared.b32 v1, v2"), 0);
    assert_eq!(i.imm, 0);
    let i = decode_at(&ok("uld.x.b64 u[2:3], u[4:5], u6"), 0);
    assert_eq!((i.rd, i.rs1, i.rs2, i.imm), (2, 4, 6, 0));
    let i = decode_at(&ok("atom.shared.add.u32.rtn v1, v2"), 0);
    assert_eq!(i.id, id("atom.shared.add.u32.rtn"));
    // Only trailing ones: the cache policy cannot take the immediate's place.
    let d = one("ld.global.b32 v1, v[2:3], glc");
    check(&d, 1, 27, "expected an immediate (s24), found `glc`", None);
}

#[test]
fn register_syntaxes() {
    let i = decode_at(&ok("ld.global.b64 v[4:5], v[ 6 : 7 ]"), 0);
    assert_eq!((i.rd, i.rs1), (4, 6));
    // A tuple operand may be written as its first register.
    let a = ok("ld.global.b64 v4, v6");
    assert_eq!(a.code, ok("ld.global.b64 v[4:5], v[6:7]").code);
    // Single registers may be written as one-register tuples.
    assert_eq!(ok("vmov v[1:1], v[2:2]").code, ok("vmov v1, v2").code);
    let i = decode_at(&ok("ld.buf.b32 v1, u[60:63], v127"), 0);
    assert_eq!((i.rd, i.rs2, i.rs1), (1, 60, 127));
    let i = decode_at(&ok("writelane v3, u4, 31"), 0);
    assert_eq!((i.rd, i.rs2, i.rs1), (3, 4, 31));
    let i = decode_at(&ok("vsel v1, v2, v3, u4"), 0);
    assert_eq!((i.rd, i.rs1, i.rs2, i.rs3), (1, 2, 3, 4));
}

#[test]
fn directives_fill_the_program() {
    let dir = scratch_dir("directives");
    std::fs::write(dir.join("data.bin"), [0xaa, 0xbb, 0xcc]).unwrap();
    let src = "\
.kernel saxpy_2
.workgroup 256
.grid 4
.shared 1024
.scratch 64
.buffer a, 16
.init a, u32, 1, 0xffffffff
.init a, i32, -2
.buffer b, 12
.fill b, u16, 0x1234, 3
.file b, \"data.bin\"
.buffer c, 32
.iota c, i32, 4, 10, -2
.iota c, f32, 2, 0.5, 0.25
.iota c, u8, 3
.buffer d, 24
.init d, u8, -1, 255
.init d, u16, 0xbeef
.init d, u64, 0x0102030405060708
.init d, f32, 1.5, 2
.arg u[0:1], a
.arg u[4:7], desc b
.arg u8, 42
.arg u9, 1.5
.arg u10, -1
.arg u[12:13], later
.buffer later, 4
.word 0xdeadbeef, 5
    nop
";
    let p = assemble(src, "d.s", Some(&dir)).unwrap();
    assert_eq!(p.name, "saxpy_2");
    assert_eq!(p.format_version, OBJECT_FORMAT_VERSION);
    assert_eq!(p.source, None);
    assert_eq!(
        p.launch,
        LaunchConfig {
            workgroup_lanes: 256,
            grid: 4,
            shared_bytes: 1024,
            scratch_bytes: 64
        }
    );
    assert_eq!(p.launch.waves_per_workgroup(), 8);
    let mut a = Vec::new();
    a.extend(1u32.to_le_bytes());
    a.extend(u32::MAX.to_le_bytes());
    a.extend((-2i32).to_le_bytes());
    let mut b: Vec<u8> = [0x1234u16; 3]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    b.extend([0xaa, 0xbb, 0xcc]);
    let mut c: Vec<u8> = [10i32, 8, 6, 4]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    c.extend([0.5f32, 0.75].iter().flat_map(|v| v.to_le_bytes()));
    c.extend([0u8, 1, 2]);
    let mut d = vec![0xff, 0xff, 0xef, 0xbe];
    d.extend(0x0102030405060708u64.to_le_bytes());
    d.extend([1.5f32, 2.0].iter().flat_map(|v| v.to_le_bytes()));
    assert_eq!(
        p.buffers,
        vec![
            BufferDef {
                name: "a".into(),
                size: 16,
                init: a
            },
            BufferDef {
                name: "b".into(),
                size: 12,
                init: b
            },
            BufferDef {
                name: "c".into(),
                size: 32,
                init: c
            },
            BufferDef {
                name: "d".into(),
                size: 24,
                init: d
            },
            BufferDef {
                name: "later".into(),
                size: 4,
                init: vec![]
            },
        ]
    );
    assert_eq!(
        p.args,
        vec![
            ArgDef {
                reg: 0,
                value: ArgValue::Address("a".into())
            },
            ArgDef {
                reg: 4,
                value: ArgValue::Descriptor("b".into())
            },
            ArgDef {
                reg: 8,
                value: ArgValue::Value(42)
            },
            ArgDef {
                reg: 9,
                value: ArgValue::Value(1.5f32.to_bits())
            },
            ArgDef {
                reg: 10,
                value: ArgValue::Value(u32::MAX)
            },
            ArgDef {
                reg: 12,
                value: ArgValue::Address("later".into())
            },
        ]
    );
    assert_eq!(p.code[..2], [0xdead_beef, 5]);
    assert_eq!(p.code.len(), 3);
    assert_eq!(Instr::decode(&p.code[2..]).unwrap().id, id("nop"));
    // `.word` is data, not an instruction line.
    assert_eq!(p.lines, vec![(8, 29)]);
    assert_eq!(p.code_bytes(), 12);
    assert_eq!(p.buffer("c").unwrap().size, 32);
    assert!(p.buffer("zz").is_none());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn defaults_without_directives() {
    let p = ok("nop");
    assert_eq!(p.name, "kernel");
    assert_eq!(p.launch, LaunchConfig::default());
    assert_eq!(
        (
            p.launch.workgroup_lanes,
            p.launch.grid,
            p.launch.shared_bytes,
            p.launch.scratch_bytes
        ),
        (32, 1, 0, 0)
    );
    assert!(p.buffers.is_empty() && p.args.is_empty() && p.labels.is_empty());
    // A kernel with no instructions is an assembler error (it could only fault).
    assert_eq!(
        one("").message,
        "no instructions: a kernel needs at least one instruction"
    );
    let mut empty = Program::empty("kernel");
    empty.code = p.code.clone();
    empty.lines = p.lines.clone();
    assert_eq!(p, empty);
}

#[test]
fn assemble_file_reads_from_disk() {
    let dir = scratch_dir("file");
    std::fs::write(dir.join("init.bin"), [9u8, 8, 7, 6]).unwrap();
    let path = dir.join("k.s");
    std::fs::write(&path, ".buffer b, 4\n.file b, \"init.bin\"\nnop\n").unwrap();
    let p = assemble_file(&path).unwrap();
    assert_eq!(
        p.source.as_deref(),
        Some(path.display().to_string().as_str())
    );
    assert_eq!(p.buffers[0].init, vec![9, 8, 7, 6]);
    // Errors name the file.
    std::fs::write(&path, "nop\nbogus\n").unwrap();
    let e = assemble_file(&path).unwrap_err();
    assert_eq!(e.diagnostics[0].file, path.display().to_string());
    assert_eq!((e.diagnostics[0].line, e.diagnostics[0].col), (2, 1));
    // A missing file.
    let e = assemble_file(&dir.join("missing.s")).unwrap_err();
    assert_eq!(e.diagnostics.len(), 1);
    assert!(
        e.diagnostics[0].message.contains("cannot read"),
        "{:?}",
        e.diagnostics[0]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn object_round_trip() {
    let dir = scratch_dir("object");
    std::fs::write(dir.join("x.bin"), [1u8, 2, 3, 4, 5]).unwrap();
    let src = "\
.kernel obj
.workgroup 64
.grid 3
.shared 16
.scratch 8
.buffer x, 8
.file x, \"x.bin\"
.buffer y, 4
.arg u[0:1], x
.arg u[4:7], desc y
.arg u2, 0x80000000
top: vmovi v1, 1.5
  ld.global.b128 v[4:7], v[0:1], -16, glc nt
  br.uz u2, top
  .word 0xffffffff
  end
";
    let mut p = assemble(src, "o.s", Some(&dir)).unwrap();
    p.source = Some("o.s".into());
    let text = p.to_object().unwrap();
    assert!(text.contains("format_version: 3"), "{text}");
    let back = Program::from_object(&text).unwrap();
    assert_eq!(back, p);
    // Stable: serializing again gives the same text.
    assert_eq!(back.to_object().unwrap(), text);
    let _ = std::fs::remove_dir_all(&dir);
    // An object is held to the assembler's limits: one with no code is refused.
    assert!(matches!(
        Program::from_object(&Program::empty("e").to_object().unwrap()),
        Err(ObjectError::Invalid(_))
    ));
}

#[test]
fn object_errors_are_clear() {
    for garbage in [
        "",
        "garbage",
        "(",
        "{\"format_version\": 1}",
        "(format_version: 1)",
    ] {
        match Program::from_object(garbage) {
            Err(e @ ObjectError::Parse(_)) => {
                let msg = e.to_string();
                assert!(msg.starts_with("not a wavedbg kernel object"), "{msg}");
            }
            other => panic!("{garbage:?}: {other:?}"),
        }
    }
    let p = ok(".kernel v\nnop");
    let text = p
        .to_object()
        .unwrap()
        .replace("format_version: 3", "format_version: 99");
    match Program::from_object(&text) {
        Err(e @ ObjectError::Version { found: 99 }) => {
            let msg = e.to_string();
            assert!(
                msg.contains("99") && msg.contains("expected 1 to 3"),
                "{msg}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn file_directive_relative_to_base_dir() {
    let dir = scratch_dir("rel");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("sub").join("v.bin"), [4u8, 3]).unwrap();
    let p = assemble(
        ".buffer b, 2\n.file b, \"sub/v.bin\"\nend",
        "r.s",
        Some(&dir),
    )
    .unwrap();
    assert_eq!(p.buffers[0].init, vec![4, 3]);
    // Without a base directory the path is relative to the current directory.
    let e = assemble(
        ".buffer b, 2\n.file b, \"sub/v.bin\"",
        "r.s",
        Some(Path::new("")),
    );
    assert!(e.is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------
// Known bugs (see the reasons)
// ---------------------------------------------------------------------------------------

#[test]
fn branch_to_a_label_starting_with_a_dot() {
    let p = ok(".Lloop:\n  nop\n  br .Lloop\n");
    assert_eq!(decode_at(&p, 4).imm, -1);
}

#[test]
fn iota_bad_step_points_at_step() {
    let d = one(".buffer b, 8\n.iota b, u8, 2, 1, x");
    check(&d, 2, 20, "START and STEP must be numbers", None);
}

#[test]
fn malformed_hex_is_rejected() {
    let d = one("vmovi v3, 0x-5");
    check(&d, 1, 11, "`0x-5`", None);
    let d = one("ld.shared.b32 v1, v2, 0b+1");
    check(&d, 1, 23, "`0b+1`", None);
}

#[test]
fn arg_hint_suggests_existing_registers() {
    let d = one(".buffer buf, 4\n.arg u63, buf");
    check(&d, 2, 6, "", None);
    let hint = d.hint.unwrap_or_default();
    assert!(!hint.contains("u[63:64]"), "hint suggests u64: {hint}");
}
