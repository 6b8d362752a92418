//! Property tests of the decoder, encoder and assembler: decoding never panics and is
//! exact, random legal instructions round-trip through bits and text, and no input text
//! makes the assembler panic.

use proptest::prelude::*;

use wavedbg_emulator::asm::assemble;
use wavedbg_emulator::isa::{DecodeError, ImmKind, Instr, InstrId, Isa, OperandKind, Origin};

/// `cases` cases, and no regression files written into the source tree.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn n_defs() -> usize {
    Isa::get().defs().len()
}

/// Maps raw random numbers onto legal operand values of definition `id`.
fn legal_instr(id: InstrId, raw: [u64; 6]) -> Instr {
    let def = Isa::get().def(id);
    let mut i = Instr::new(id);
    for (op, r) in def.operands.iter().zip(raw) {
        let (lo, hi) = match op.kind {
            OperandKind::Reg { file, count } => (0, file.count() as i64 - count as i64),
            // b32: the canonical (decoded) form is the unsigned bit pattern.
            OperandKind::Imm(ImmKind::B32) => (0, u32::MAX as i64),
            OperandKind::Imm(k) => k.range(),
            OperandKind::Cpol => (0, 7),
        };
        let span = (hi - lo + 1) as u64;
        // Bias towards the extremes half the time.
        let v = match r % 8 {
            0 => lo,
            1 => hi,
            2 => lo + 1,
            3 => hi - 1,
            _ => lo + ((r >> 3) % span) as i64,
        };
        i.set(op.slot, v.clamp(lo, hi));
    }
    i
}

prop_compose! {
    fn any_legal_instr()(id in 0..n_defs(), raw in any::<[u64; 6]>()) -> Instr {
        legal_instr(id as InstrId, raw)
    }
}

prop_compose! {
    /// A word pattern close to a legal instruction: one row's fixed bits with random
    /// operand fields, sometimes with one stray bit flipped.
    fn near_legal_words()(
        id in 0..n_defs(),
        noise in any::<u64>(),
        flip in prop::option::weighted(0.2, 0u32..64),
    ) -> Vec<u32> {
        let def = Isa::get().def(id as InstrId);
        let mut w = def.fixed_bits | (noise & !def.fixed_mask);
        if let Some(b) = flip {
            w ^= 1 << b;
        }
        if def.len == 8 {
            vec![w as u32, (w >> 32) as u32]
        } else {
            vec![w as u32]
        }
    }
}

fn check_reencode(words: &[u32]) -> Result<(), TestCaseError> {
    if let Ok(i) = Instr::decode(words) {
        let enc = i
            .encode_words()
            .map_err(|e| TestCaseError::fail(format!("{words:08x?} decoded to {i:?} but: {e}")))?;
        prop_assert_eq!(&enc[..], &words[..enc.len()], "{:?}", i);
        prop_assert_eq!(enc.len() as u32 * 4, i.size_bytes());
        // Decoding is a function of the instruction's own words only.
        prop_assert_eq!(Instr::decode(&enc), Ok(i));
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn decode_one_word_never_panics_and_is_exact(w in any::<u32>()) {
        match Instr::decode(&[w]) {
            Ok(i) => {
                prop_assert_eq!(w & 1, 0);
                prop_assert_eq!(i.encode_words().unwrap(), vec![w]);
            }
            Err(DecodeError::Truncated) => prop_assert_eq!(w & 1, 1),
            Err(DecodeError::Unknown { word, opcode }) => {
                prop_assert_eq!(word, w);
                prop_assert_eq!(opcode as u32, w & 0x7f);
            }
            Err(_) => prop_assert_eq!(w & 1, 0),
        }
    }

    #[test]
    fn decode_two_words_never_panics_and_is_exact(lo in any::<u32>(), hi in any::<u32>()) {
        check_reencode(&[lo, hi])?;
        // A 32-bit instruction ignores the second word.
        if lo & 1 == 0 {
            prop_assert_eq!(Instr::decode(&[lo, hi]), Instr::decode(&[lo]));
        }
    }

    #[test]
    fn decode_slices_never_panic(words in prop::collection::vec(any::<u32>(), 0..5)) {
        let r = Instr::decode(&words);
        if words.is_empty() {
            prop_assert_eq!(r, Err(DecodeError::Truncated));
        }
        check_reencode(&words)?;
    }

    #[test]
    fn one_word_with_length_bit_is_truncated(w in any::<u32>()) {
        let w = w | 1;
        prop_assert_eq!(Instr::decode(&[w]), Err(DecodeError::Truncated));
    }

    #[test]
    fn near_legal_words_decode_exactly(words in near_legal_words()) {
        check_reencode(&words)?;
    }

    #[test]
    fn near_legal_words_without_flip_decode_to_their_row(
        id in 0..n_defs(),
        noise in any::<u64>(),
    ) {
        let def = Isa::get().def(id as InstrId);
        let all = if def.len == 8 { u64::MAX } else { 0xffff_ffff };
        let w = def.fixed_bits | (noise & !def.fixed_mask & all);
        let words = [w as u32, (w >> 32) as u32];
        match Instr::decode(&words[..def.len as usize / 4]) {
            Ok(i) => {
                prop_assert_eq!(i.id, id as InstrId);
                prop_assert_eq!(i.encode().unwrap().0, w);
            }
            // Only an operand can be wrong: a tuple past the end, or a narrow immediate.
            Err(DecodeError::Operand { mnemonic, .. }) => {
                prop_assert_eq!(mnemonic, def.mnemonic())
            }
            Err(e) => prop_assert!(false, "{}: {}", def.mnemonic(), e),
        }
    }

    #[test]
    fn legal_instr_encode_decode_encode(instr in any_legal_instr()) {
        let words = instr.encode_words().unwrap();
        prop_assert_eq!(words.len() as u32 * 4, instr.size_bytes());
        let back = Instr::decode(&words).unwrap();
        prop_assert_eq!(back, instr);
        prop_assert_eq!(back.encode_words().unwrap(), words);
    }

    #[test]
    fn legal_instr_text_assembles_to_same_words(instr in any_legal_instr(), pc in 0u64..1024) {
        let words = instr.encode_words().unwrap();
        let text = instr.text(pc * 4);
        let p = assemble(&text, "p.s", None)
            .map_err(|e| TestCaseError::fail(format!("`{text}` rejected:\n{e}")))?;
        prop_assert_eq!(&p.code, &words, "`{}`", text);
        // text -> bits -> text.
        let again = Instr::decode(&p.code).unwrap();
        prop_assert_eq!(again.text(0), text);
        if instr.def().row.origin == Origin::Spec {
            prop_assert_eq!(again, instr);
        }
    }

    #[test]
    fn legal_instr_text_assembles_after_other_code(
        instrs in prop::collection::vec(any_legal_instr(), 1..12),
    ) {
        // A sequence: relative branch text is relative to each instruction's own address.
        let mut src = String::new();
        let mut code = Vec::new();
        let mut pc = 0u64;
        for i in &instrs {
            src.push_str(&i.text(pc));
            src.push('\n');
            code.extend(i.encode_words().unwrap());
            pc += i.size_bytes() as u64;
        }
        let p = assemble(&src, "p.s", None)
            .map_err(|e| TestCaseError::fail(format!("rejected:\n{src}\n{e}")))?;
        prop_assert_eq!(p.code, code, "{}", src);
        prop_assert_eq!(p.lines.len(), instrs.len());
    }
}

// ---------------------------------------------------------------------------------------
// The assembler on arbitrary text
// ---------------------------------------------------------------------------------------

fn mnemonic() -> impl Strategy<Value = String> {
    (0..n_defs()).prop_map(|i| Isa::get().def(i as InstrId).mnemonic().to_string())
}

fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        (-300i64..300).prop_map(|v| v.to_string()),
        any::<i32>().prop_map(|v| v.to_string()),
        any::<u32>().prop_map(|v| format!("{v:#x}")),
        any::<u8>().prop_map(|v| format!("{v:#b}")),
        (-1000i64..1000).prop_map(|v| format!("{}.5", v)),
        prop::sample::select(vec![
            "0x",
            "0b",
            "-",
            "+",
            "1e",
            "1e40",
            "-inf",
            "nan",
            "1_000",
            "0x_ff",
            "--1",
            "9223372036854775807",
            "-9223372036854775808",
            "99999999999999999999",
            "0xffffffffffffffffff",
            "4294967296",
            "-2147483649",
            "8388607",
            "-8388608",
            "1.",
            ".5",
            "0x1p3",
            "+-0",
        ])
        .prop_map(str::to_string),
    ]
}

fn register() -> impl Strategy<Value = String> {
    prop_oneof![
        (prop::sample::select(vec!['v', 'u', 'x', 'V']), 0u32..200)
            .prop_map(|(p, n)| format!("{p}{n}")),
        (prop::sample::select(vec!['v', 'u']), 0u32..200, 0u32..200)
            .prop_map(|(p, a, b)| format!("{p}[{a}:{b}]")),
        prop::sample::select(vec![
            "v[",
            "v[1:",
            "v[1:2",
            "u[:]",
            "v[a:b]",
            "v]",
            "v[2:1]",
            "u[0:63]",
            "v[0:127]",
            "v99999",
            "v",
            "u",
            "v-1",
            "v[ 4 : 7 ]",
            "v[4:7]]",
        ])
        .prop_map(str::to_string),
    ]
}

fn operand() -> impl Strategy<Value = String> {
    prop_oneof![
        register(),
        number(),
        prop::sample::select(vec![
            "glc",
            "slc",
            "nt",
            "glc slc nt",
            "glc|nt",
            "foo",
            "loop",
            "L_0000",
            ".+4",
            ".-8",
            ".+",
            ".",
            ".+0x10",
            ".-0",
            "desc buf",
            "buf",
            "\"x\"",
            "\"",
            "[",
            "]",
            "()",
            "",
            " ",
            ",",
            "u8",
            "u32",
            "f32",
        ])
        .prop_map(str::to_string),
        ("[.+-]", -100i64..100).prop_map(|(p, n)| format!(".{p}{n}")),
    ]
}

fn head() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => mnemonic(),
        2 => prop::sample::select(vec![
            ".kernel", ".workgroup", ".grid", ".shared", ".scratch", ".buffer", ".init",
            ".fill", ".iota", ".arg", ".word", ".bogus", ".", "..",
        ])
        .prop_map(str::to_string),
        1 => "[a-z.]{1,12}",
    ]
}

fn line() -> impl Strategy<Value = String> {
    (
        prop::option::of("[a-zA-Z_.$][a-zA-Z0-9_.$]{0,6}:"),
        prop::option::of(head()),
        prop::collection::vec(operand(), 0..6),
        prop::sample::select(vec![", ", ",", " , ", " ", ",,", "\t,"]),
        prop::option::of(prop::sample::select(vec![
            "; comment",
            "// comment",
            ";",
            "/",
            "\"; not a comment",
        ])),
    )
        .prop_map(|(label, head, ops, sep, comment)| {
            let mut s = String::new();
            if let Some(l) = label {
                s.push_str(&l);
                s.push(' ');
            }
            if let Some(h) = head {
                s.push_str(&h);
                s.push(' ');
            }
            s.push_str(&ops.join(sep));
            if let Some(c) = comment {
                s.push(' ');
                s.push_str(c);
            }
            s
        })
}

/// A base directory that does not exist, so `.file` in random text reads nothing.
fn nowhere() -> std::path::PathBuf {
    std::env::temp_dir().join("wavedbg-isa-proptest-no-such-dir")
}

fn check_assembles_without_panic(src: &str) -> Result<(), TestCaseError> {
    match assemble(src, "fuzz.s", Some(&nowhere())) {
        Ok(p) => {
            // Whatever assembled decodes back into instructions or raw words.
            prop_assert_eq!(p.code.len() as u64 * 4, p.code_bytes());
        }
        Err(errs) => {
            prop_assert!(!errs.diagnostics.is_empty());
            let lines = src.lines().count() as u32;
            for d in &errs.diagnostics {
                if d.line == 0 {
                    // A file-level error (no instructions): no position, no snippet.
                    prop_assert!(d.col == 0 && d.source_line.is_empty(), "{:?}", d);
                    prop_assert!(!d.message.is_empty());
                    continue;
                }
                prop_assert!(d.line >= 1 && d.line <= lines.max(1), "{:?}", d);
                prop_assert!(d.col >= 1, "{:?}", d);
                prop_assert!(d.len >= 1, "{:?}", d);
                prop_assert!(!d.message.is_empty());
                // The column points into (or just past) the line, of which a long one is
                // shown as an excerpt starting `excerpt_start` characters in.
                let width = d.source_line.chars().count() as u32;
                prop_assert!(d.col > d.excerpt_start, "{:?}", d);
                prop_assert!(d.col <= d.excerpt_start + width + 1, "{:?}", d);
            }
            // Rendering never panics either.
            let rendered = errs.to_string();
            prop_assert!(rendered.contains("error:"));
        }
    }
    Ok(())
}

// Unknown mnemonics are the assembler's slow path (a "did you mean" search over every
// mnemonic, ~2 ms each in a debug build), so the text properties run fewer cases.
proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn assembling_printable_text_never_panics(src in "(\\PC{0,40}\n?){0,6}") {
        check_assembles_without_panic(&src)?;
    }

    #[test]
    fn assembling_ascii_soup_never_panics(src in "[ -~\t\n]{0,200}") {
        check_assembles_without_panic(&src)?;
    }

    #[test]
    fn assembling_random_lines_never_panics(lines in prop::collection::vec(line(), 0..12)) {
        check_assembles_without_panic(&lines.join("\n"))?;
    }

    #[test]
    fn assembling_random_lines_with_buffers_never_panics(
        size in 1u64..64,
        lines in prop::collection::vec(line(), 0..8),
        tail in prop::collection::vec(
            prop::sample::select(vec![
                ".init buf, u8, 1, 2, 3",
                ".init buf, u64, -1",
                ".init buf, f32, 1.5, -inf",
                ".fill buf, u16, 7, 3",
                ".iota buf, i32, 4, -2, 3",
                ".iota buf, f32, 2, 0.5",
                ".arg u[0:1], buf",
                ".arg u[4:7], desc buf",
                ".arg u8, 1.5",
                ".arg u[2:3], missing",
                ".arg u62, buf",
                "br loop",
                "loop: nop",
            ]),
            0..6,
        ),
    ) {
        let mut src = format!(".buffer buf, {size}\n");
        src.push_str(&lines.join("\n"));
        src.push('\n');
        src.push_str(&tail.join("\n"));
        check_assembles_without_panic(&src)?;
    }
}

/// Unicode and control characters in every position: never a panic or a wrong column.
#[test]
fn assembling_unicode_lines_never_panics() {
    let cases = [
        "vmov v1, v2 ; 注释",
        "é: nop",
        "nop é",
        "vmov é, v2",
        "vmov v1, v\u{2003}2",
        "\u{feff}nop",
        "ld.global.b32 v1, v[2:3], 0, glc\u{a0}slc",
        "\t\tvmov\tv1,\tv2",
        "vmov v1, v2\r",
        "\r\n\r\n",
        "\"unterminated ; nop",
        "標籤: vmov v1, v2",
        "vmov v1, 😀",
        ".kernel 😀",
        ".buffer 😀, 4",
    ];
    for src in cases {
        let r = assemble(src, "u.s", None);
        if let Err(e) = r {
            let _ = e.to_string();
            for d in e.diagnostics.iter().filter(|d| d.line > 0) {
                assert!(d.col >= 1 && d.col <= d.source_line.chars().count() as u32 + 1);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Known panics (see the reasons). Each input must give an error, not a panic.
// ---------------------------------------------------------------------------------------

fn assert_no_panic(src: &str) {
    let r = std::panic::catch_unwind(|| assemble(src, "p.s", None).map(|_| ()));
    match r {
        Ok(res) => {
            let e = res.expect_err("should be rejected");
            assert!(!e.diagnostics.is_empty());
        }
        Err(_) => panic!("the assembler panicked on {src:?}"),
    }
}

#[test]
fn huge_relative_branch_target_is_an_error() {
    assert_no_panic("nop\nbr .+9223372036854775807");
}

#[test]
fn huge_tuple_register_is_an_error() {
    assert_no_panic("vmov v[4294967295:4294967295], v1");
    assert_no_panic("ld.global.b64 v[4294967294:4294967295], v[0:1]");
}

#[test]
fn huge_arg_register_is_an_error() {
    assert_no_panic(".arg u[4294967295:4294967295], 5");
}

fn extreme_number() -> impl Strategy<Value = String> {
    prop_oneof![
        number(),
        prop::sample::select(vec![
            "4294967295",
            "4294967294",
            "9223372036854775807",
            "9223372036854775806",
            "18446744073709551615",
        ])
        .prop_map(str::to_string),
    ]
}

fn extreme_operand() -> impl Strategy<Value = String> {
    prop_oneof![
        operand(),
        (
            prop::sample::select(vec!['v', 'u']),
            extreme_number(),
            extreme_number()
        )
            .prop_map(|(p, a, b)| format!("{p}[{a}:{b}]")),
        (prop::sample::select(vec!['v', 'u']), extreme_number())
            .prop_map(|(p, a)| format!("{p}[{a}:{a}]")),
        (prop::sample::select(vec!["+", "-"]), extreme_number())
            .prop_map(|(s, n)| format!(".{s}{n}")),
    ]
}

proptest! {
    #![proptest_config(config(300))]

    /// Like `assembling_random_lines_never_panics`, with huge register numbers and relative
    /// targets: finds the three panics above.
    #[test]
    fn assembling_lines_with_extreme_numbers_never_panics(
        lines in prop::collection::vec(
            (
                prop_oneof![
                    head(),
                    prop::sample::select(vec!["br", "br.uz u1,", "vmov", "umov", ".arg"])
                        .prop_map(str::to_string),
                ],
                prop::collection::vec(extreme_operand(), 0..4),
            )
                .prop_map(|(h, ops)| format!("nop\n{h} {}", ops.join(", "))),
            1..6,
        ),
    ) {
        check_assembles_without_panic(&lines.join("\n"))?;
    }
}
