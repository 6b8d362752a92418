//! The assembler on hostile input: megabyte tokens and lines and hundreds of thousands of
//! bad lines are rejected in time linear in the input with a bounded report; invisible and
//! look-alike characters are named; generated buffer values are range-checked; `.file`
//! reads only under the source's directory. (Figures: docs/performance.md, "Hostile
//! input".)

use std::path::PathBuf;

use wavedbg_emulator::asm::{
    assemble, assemble_file, assemble_file_with, AsmErrors, AssembleOptions, Diagnostic,
    MAX_DIAGNOSTICS,
};

fn rejected(src: &str) -> AsmErrors {
    match assemble(src, "e.s", None) {
        Ok(_) => panic!("accepted: {:?}", &src[..src.len().min(200)]),
        Err(e) => e,
    }
}

fn first(src: &str) -> Diagnostic {
    rejected(src).diagnostics.remove(0)
}

fn scratch_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wavedbg-asm-hostile-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

// ---------------------------------------------------------------------------------------
// Size: bounded reports, bounded work
// ---------------------------------------------------------------------------------------

#[test]
fn a_megabyte_token_gives_a_short_error() {
    let token = "q".repeat(1 << 20);
    let e = rejected(&format!("nop\n{token}\nend\n"));
    assert_eq!(e.total(), 1);
    let d = &e.diagnostics[0];
    assert_eq!((d.line, d.col), (2, 1));
    assert!(
        d.message.starts_with("unknown mnemonic `qqqq"),
        "{}",
        d.message
    );
    assert!(d.message.contains("(1048576 bytes)"), "{}", d.message);
    assert!(d.message.len() < 200, "{} bytes", d.message.len());
    assert!(d.source_line.len() < 400, "{} bytes", d.source_line.len());
    assert!(d.len <= 80);
    // No suggestion is computed for a token this long (it is no typo of a mnemonic).
    assert_eq!(d.hint, None);
    assert!(e.to_string().len() < 2000);
    // The same as an operand, a label and a buffer name.
    for src in [
        format!("br {token}\nend"),
        format!(".buffer b, {token}\nend"),
        format!(".buffer b, 4\n.init {token}, u8, 1\nend"),
        format!(".word {token}\nend"),
    ] {
        let e = rejected(&src);
        assert!(e.to_string().len() < 2000, "{}", &e.to_string()[..300]);
    }
}

#[test]
fn a_four_megabyte_line_of_garbage_gives_a_bounded_report() {
    let line = "x,".repeat(2 << 20);
    let e = rejected(&format!("{line}\nend"));
    assert_eq!(e.total(), 1);
    assert!(e.to_string().len() < 2000);
    // Garbage operands: one error each, capped, the count exact.
    let ops = vec!["zz"; 1 << 20].join(", ");
    let e = rejected(&format!(".word {ops}\nend"));
    assert_eq!(e.diagnostics.len(), MAX_DIAGNOSTICS);
    assert_eq!(e.total(), 1 << 20);
    assert!(e.diagnostics.iter().all(|d| d.source_line.len() < 400));
    let cols: Vec<u32> = e.diagnostics.iter().map(|d| d.col).collect();
    assert!(cols.windows(2).all(|w| w[0] < w[1]), "in column order");
    assert_eq!(e.diagnostics[0].col, 7);
    assert!(e.to_string().len() < 100 * 1000);
    // Many duplicate labels and many bad characters on one line.
    let e = rejected(&format!("{}end", "a:".repeat(1 << 20)));
    assert_eq!(e.total(), (1 << 20) - 1);
    let e = rejected(&format!("{}\nend", "\u{a0}".repeat(1 << 20)));
    assert_eq!(e.total(), 1 << 20);
}

#[test]
fn two_hundred_thousand_bad_lines_are_capped_in_line_order() {
    let mut src = String::new();
    for i in 0..200_000 {
        // Every other line errs in the second pass (operands), the others in the first.
        if i % 2 == 0 {
            src.push_str("vmov v1, zz\n");
        } else {
            src.push_str("bogus\n");
        }
    }
    let e = rejected(&src);
    assert_eq!(e.diagnostics.len(), MAX_DIAGNOSTICS);
    assert_eq!(e.more, 200_000 - MAX_DIAGNOSTICS);
    let lines: Vec<u32> = e.diagnostics.iter().map(|d| d.line).collect();
    assert_eq!(lines, (1..=MAX_DIAGNOSTICS as u32).collect::<Vec<_>>());
    let text = e.to_string();
    assert!(
        text.contains(&format!(
            "\n\n... and {} more errors",
            200_000 - MAX_DIAGNOSTICS
        )),
        "{}",
        &text[text.len() - 200..]
    );
    assert!(text.ends_with("200000 errors"));
    // Undefined labels against many defined ones: the suggestion work is bounded.
    let mut src = String::new();
    for i in 0..50_000 {
        src.push_str(&format!("label_{i}: br missing_{i}\n"));
    }
    let e = rejected(&src);
    assert_eq!(e.total(), 50_000);
    assert!(e.diagnostics[0].hint.is_some());
}

#[test]
fn errors_are_reported_in_line_order() {
    let e = rejected("vmov v1, zz\nbogus\nvmov v1, yy\n.bogus\nend");
    let lines: Vec<u32> = e.diagnostics.iter().map(|d| d.line).collect();
    assert_eq!(lines, [1, 2, 3, 4]);
    assert_eq!(e.more, 0);
}

// ---------------------------------------------------------------------------------------
// Characters
// ---------------------------------------------------------------------------------------

#[test]
fn invisible_and_look_alike_characters_are_named() {
    let cases = [
        (
            "vmov\u{a0}v1, v2\nend",
            5,
            "U+00A0 NO-BREAK SPACE",
            "plain space",
        ),
        (
            "vmov v1,\u{2028}v2\nend",
            9,
            "U+2028 LINE SEPARATOR",
            "line break",
        ),
        (
            "vm\u{200b}ov v1, v2\nend",
            3,
            "U+200B ZERO WIDTH SPACE",
            "delete",
        ),
        ("vmov v1, v2\u{feff}\nend", 12, "U+FEFF", "delete"),
        ("vmov v1, v\u{0430}\nend", 11, "U+0430 CYRILLIC", "`a`"),
        ("\u{ff56}mov v1, v2\nend", 1, "U+FF56 FULLWIDTH", "`v`"),
        ("vmov.u v1, \u{2013}1\nend", 12, "U+2013 EN DASH", "`-`"),
        ("vmov.u v1, \u{2212}1\nend", 12, "U+2212 MINUS SIGN", "`-`"),
        ("vmov v1, v2\u{7}\nend", 12, "U+0007", "delete"),
        ("nop\u{200e}\nend", 4, "U+200E", "delete"),
        ("\u{3000}nop\nend", 1, "U+3000", "plain space"),
    ];
    for (src, col, message, hint) in cases {
        let e = rejected(src);
        assert_eq!(e.total(), 1, "{src:?}: {e}");
        let d = &e.diagnostics[0];
        assert_eq!((d.line, d.col), (1, col), "{src:?}: {d:?}");
        assert!(d.message.contains(message), "{src:?}: {}", d.message);
        assert!(d.message.contains("is not allowed here"), "{}", d.message);
        let h = d.hint.as_deref().unwrap_or("");
        assert!(h.contains(hint), "{src:?}: {h}");
    }
    // Comments and quoted paths may hold any character.
    assert!(assemble("nop ; café\u{a0}\u{200b}\nend", "k.s", None).is_ok());
}

#[test]
fn a_byte_order_mark_at_the_start_is_skipped() {
    let p = assemble("\u{feff}nop\nend\n", "k.s", None).expect("BOM accepted");
    assert_eq!(p.code.len(), 2);
    let d = first("\u{feff}bogus\nend");
    assert_eq!((d.line, d.col), (1, 1));
    assert_eq!(d.source_line, "bogus");
}

#[test]
fn line_endings() {
    // CRLF works, with columns unaffected.
    let p = assemble("nop\r\nlbl: nop\r\nend\r\n", "k.s", None).expect("CRLF");
    assert_eq!(p.code.len(), 3);
    let d = first("nop\r\n  bogus\r\nend\r\n");
    assert_eq!((d.line, d.col, d.len), (2, 3, 5));
    // CR alone (classic Mac OS) is named, not read as one long line.
    let e = rejected("nop\rvmov v1, 5\rend\r");
    assert_eq!(e.total(), 1);
    let d = &e.diagnostics[0];
    assert!(d.message.contains("CR line endings"), "{}", d.message);
    assert_eq!((d.line, d.col), (1, 4));
    let d = first("nop\nnop\nvmov v1, v2\rend\n");
    assert!(d.message.contains("CR line endings"), "{}", d.message);
    assert_eq!((d.line, d.col), (3, 12));
}

#[test]
fn an_upper_case_mnemonic_suggests_the_lower_case_one() {
    let d = first("VMOV v1, v2\nend");
    assert_eq!(d.message, "unknown mnemonic `VMOV`");
    let h = d.hint.unwrap();
    assert!(h.contains("`vmov`"), "{h}");
    assert!(!h.contains("`br`"), "{h}");
    let d = first("End");
    assert!(d.hint.unwrap().contains("`end`"));
    let d = first(".KERNEL k\nend");
    assert!(d.hint.unwrap().contains(".kernel"));
    // A word close to no mnemonic gets no suggestion rather than unrelated ones.
    let d = first("xyzzyplugh v1\nend");
    assert_eq!(d.hint, None);
}

// ---------------------------------------------------------------------------------------
// Generated values
// ---------------------------------------------------------------------------------------

#[test]
fn iota_values_must_fit_the_element_type() {
    let bad = [
        (".iota b, u8, 2, 256", "256"),
        (".iota b, u8, 8, 250, 1", "256"),
        (".iota b, u8, 200, 0, 2", "256"),
        (".iota b, u8, 3, -127, -1", "-129"),
        (".iota b, u16, 2, 65535", "65536"),
        (".iota b, i32, 3, 0xfffffffe", "4294967296"),
        (".iota b, u8, 1, 0.5", "0.5"),
        (".iota b, u8, 2, 0, 0.5", "0.5"),
        (".iota b, f32, 3, 3e38, 3e38", "f32"),
        (".iota b, f32, 1, 1e39", "1e39"),
    ];
    for (line, named) in bad {
        let d = first(&format!(".buffer b, 4096\n{line}\nend"));
        assert_eq!(d.line, 2, "{line}: {d:?}");
        assert!(d.message.contains(named), "{line}: {}", d.message);
    }
    let p = assemble(
        ".buffer b, 64\n.iota b, u8, 3, 253\n.iota b, u8, 2, -127, -1\n.iota b, u16, 2, 65534\n.iota b, f32, 2, 0.5, 0.25\n.iota b, u8, 4, 7, 0\nend",
        "k.s",
        None,
    )
    .expect("in range");
    let mut want = vec![253, 254, 255, 129, 128, 254, 255, 255, 255];
    want.extend(0.5f32.to_le_bytes());
    want.extend(0.75f32.to_le_bytes());
    want.extend([7, 7, 7, 7]);
    assert_eq!(p.buffers[0].init, want);
}

#[test]
fn iota_wraps_only_when_asked() {
    let p = assemble(".buffer b, 64\n.iota b, u8, 4, 254, 1, wrap\n.iota b, u32, 2, 0xffffffff, 2654435761, wrap\nend", "k.s", None)
        .expect("wrap asked");
    let mut want = vec![254, 255, 0, 1];
    want.extend(0xffff_ffffu32.to_le_bytes());
    want.extend(0xffff_ffffu32.wrapping_add(2654435761).to_le_bytes());
    assert_eq!(p.buffers[0].init, want);
    for line in [".iota b, f32, 2, 0, 1, wrap", ".iota b, u8, 2, 0, 1, wrapp"] {
        let d = first(&format!(".buffer b, 64\n{line}\nend"));
        assert_eq!(d.line, 2, "{d:?}");
        assert!(d.message.contains("expected `wrap`"), "{}", d.message);
    }
}

#[test]
fn every_value_directive_is_range_checked() {
    for line in [
        ".fill b, u8, 256, 2",
        ".fill b, f32, 1e39, 2",
        ".init b, f32, -1e39",
        ".init b, u16, 65536",
        ".arg u0, 1e39",
    ] {
        let d = first(&format!(".buffer b, 4096\n{line}\nend"));
        assert_eq!(d.line, 2, "{line}: {d:?}");
    }
    let d = first("vmov v1, 1e39\nend");
    assert_eq!(d.line, 1);
    // Infinity written as such stays allowed.
    assert!(assemble(".buffer b, 8\n.init b, f32, inf, -inf\nend", "k.s", None).is_ok());
}

// ---------------------------------------------------------------------------------------
// `.file`
// ---------------------------------------------------------------------------------------

#[test]
fn file_reads_only_under_the_source_directory() {
    let root = scratch_dir("confine");
    let dir = root.join("kernel");
    std::fs::create_dir_all(dir.join("data")).unwrap();
    std::fs::write(root.join("secret.bin"), [1u8, 2, 3]).unwrap();
    std::fs::write(dir.join("data/ok.bin"), [4u8, 5]).unwrap();
    let k = dir.join("k.s");
    let write = |path: &str| {
        std::fs::write(&k, format!(".buffer b, 16\n.file b, \"{path}\"\nend\n")).unwrap();
    };
    // Inside, also through `..` that stays inside.
    for path in ["data/ok.bin", "data/../data/ok.bin"] {
        write(path);
        let p = assemble_file(&k).expect("inside");
        assert_eq!(p.buffers[0].init, [4, 5]);
    }
    let secret = root.join("secret.bin");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&secret, dir.join("link.bin")).unwrap();
    let mut outside = vec!["../secret.bin".to_string(), secret.display().to_string()];
    if cfg!(unix) {
        outside.push("link.bin".into());
    }
    for path in &outside {
        write(path);
        let e = assemble_file(&k).expect_err(path);
        let d = &e.diagnostics[0];
        assert_eq!((d.line, d.col), (2, 10), "{path}: {d:?}");
        assert!(
            d.message.contains("outside the kernel's directory"),
            "{path}: {}",
            d.message
        );
        assert!(d
            .hint
            .as_deref()
            .unwrap()
            .contains("--allow-file-outside-dir"));
        // Allowed explicitly.
        let allow = AssembleOptions {
            allow_files_outside_dir: true,
        };
        let p = assemble_file_with(&k, &allow).expect("allowed");
        assert_eq!(p.buffers[0].init, [1, 2, 3]);
    }
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn file_reads_are_bounded_and_regular() {
    let dir = scratch_dir("bounded");
    std::fs::write(dir.join("big.bin"), vec![0u8; 100]).unwrap();
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let k = dir.join("k.s");
    std::fs::write(&k, ".buffer b, 64\n.file b, \"big.bin\"\nend\n").unwrap();
    let d = assemble_file(&k).unwrap_err().diagnostics.remove(0);
    assert!(
        d.message.contains("big.bin") && d.message.contains("100 bytes"),
        "{}",
        d.message
    );
    assert!(d.hint.unwrap().contains("64"));
    std::fs::write(&k, ".buffer b, 64\n.file b, \"sub\"\nend\n").unwrap();
    let d = assemble_file(&k).unwrap_err().diagnostics.remove(0);
    assert!(d.message.contains("not a regular file"), "{}", d.message);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_filled_buffer_disassembles_to_a_fill() {
    let p = assemble(
        ".buffer b, 8192\n.init b, u32, 1, 2\n.fill b, u32, 7, 1000\n.init b, u8, 9\nend",
        "k.s",
        None,
    )
    .unwrap();
    let text = wavedbg_emulator::disasm::disassemble(&p);
    assert!(text.contains(".fill b, u32, 0x7, 1000"), "{text}");
    assert!(text.len() < 1000, "{text}");
    let back = assemble(&text, "d.s", None).unwrap();
    assert_eq!(back.buffers, p.buffers);
}
