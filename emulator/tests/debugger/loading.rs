//! Loading kernels as the debugger gets them: assembler errors without instructions or
//! without a file, kernel objects validated like assembler output, bounded launch options,
//! and arbitrary source or corrupted objects without a panic.

use super::fixtures::*;
use wavedbg_emulator::program::ObjectError;

fn object_with(edit: impl FnOnce(&mut Program)) -> String {
    let mut p = assemble(COND, "t.s", None).expect("kernel assembles");
    edit(&mut p);
    p.to_object().expect("serialises")
}

#[test]
fn kernel_objects_are_validated_like_assembler_output() {
    use wavedbg_emulator::program::{ArgDef, ArgValue, BufferDef};
    let huge = object_with(|p| {
        p.buffers.push(BufferDef {
            name: "big".into(),
            size: 1 << 54,
            init: Vec::new(),
        })
    });
    let e = Program::from_object(&huge).expect_err("2^54-byte buffer");
    assert!(
        e.to_string()
            .contains("buffer `big` has size 18014398509481984"),
        "{e}"
    );

    type Edit = Box<dyn FnOnce(&mut Program)>;
    let cases: Vec<(Edit, ProgramError)> = vec![
        (Box::new(|p| p.code.clear()), ProgramError::NoInstructions),
        (
            Box::new(|p| p.launch.shared_bytes = u32::MAX),
            ProgramError::SharedTooLarge(u32::MAX),
        ),
        (
            Box::new(|p| p.launch.scratch_bytes = 1 << 20),
            ProgramError::ScratchTooLarge(1 << 20),
        ),
        (
            Box::new(|p| p.launch.workgroup_lanes = 33),
            ProgramError::WorkgroupLanes(33),
        ),
        (Box::new(|p| p.launch.grid = 0), ProgramError::EmptyGrid),
        (
            Box::new(|p| {
                p.args.push(ArgDef {
                    reg: 62,
                    value: ArgValue::Descriptor("nope".into()),
                })
            }),
            ProgramError::UnknownBuffer {
                reg: 62,
                name: "nope".into(),
            },
        ),
        (
            Box::new(|p| {
                p.buffers.push(BufferDef {
                    name: "b".into(),
                    size: 4,
                    init: vec![0; 8],
                })
            }),
            ProgramError::InitTooLong {
                name: "b".into(),
                init: 8,
                size: 4,
            },
        ),
        (
            Box::new(|p| {
                p.labels.insert("far".into(), 1 << 40);
            }),
            ProgramError::LabelOutside {
                name: "far".into(),
                addr: 1 << 40,
                code_bytes: 36,
            },
        ),
        (Box::new(|p| p.lines.reverse()), ProgramError::LineTable(1)),
    ];
    for (edit, want) in cases {
        let text = object_with(edit);
        match Program::from_object(&text) {
            Err(wavedbg_emulator::program::ObjectError::Invalid(got)) => assert_eq!(got, want),
            other => panic!("expected {want:?}, got {other:?}"),
        }
    }
    // The machine checks a program built in memory the same way.
    let mut p = assemble(COND, "t.s", None).expect("kernel assembles");
    p.buffers.push(BufferDef {
        name: "big".into(),
        size: 1 << 54,
        init: Vec::new(),
    });
    assert!(Machine::new(&p, LaunchOptions::default()).is_err());
}

#[test]
fn launch_options_from_a_session_are_bounded() {
    let p = assemble(COND, "t.s", None).expect("kernel assembles");
    let options = LaunchOptions {
        grid: Some(u32::MAX),
        resident_workgroups: u32::MAX,
        ..LaunchOptions::default()
    };
    let e = Machine::new(&p, options).expect_err("4 billion resident workgroups");
    assert!(e.to_string().contains("resident waves"), "{e}");
}

#[test]
fn an_empty_kernel_is_an_assembler_error() {
    for src in [
        "",
        "\n\n",
        "; only a comment\n",
        ".kernel k\n.grid 2\n",
        "label:\n",
    ] {
        let e = assemble(src, "empty.s", None).expect_err("no instructions");
        let text = e.to_string();
        assert_eq!(
            text, "empty.s: error: no instructions: a kernel needs at least one instruction",
            "{src:?}"
        );
    }
}

#[test]
fn a_missing_source_file_says_so_without_a_position() {
    let e = wavedbg_emulator::asm::assemble_file(std::path::Path::new("/nonexistent/k.s"))
        .expect_err("missing");
    assert_eq!(
        e.to_string(),
        "cannot read /nonexistent/k.s: No such file or directory"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn assembler_never_panics(text in prop_oneof![texty(), bytes_text(), "\\PC*"], prefix in prop::sample::select(vec!["", "    ", ".buffer b, ", "vadd.u32 ", "ld.ubase.b32 ", ".arg ", "l: "])) {
        let src = format!("{prefix}{text}\n{text}");
        let _ = assemble(&src, "t.s", None);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn corrupted_kernel_objects_never_panic(pos in 0usize..4000, byte in any::<u8>()) {
        let mut bytes = object_with(|_| {}).into_bytes();
        if !bytes.is_empty() {
            let at = pos % bytes.len();
            bytes[at] = byte;
        }
        let text = String::from_utf8_lossy(&bytes);
        if let Ok(p) = Program::from_object(&text) {
            // Whatever loads also launches or says why not.
            let _ = Machine::new(&p, LaunchOptions::default());
        }
    }
}

/// A version 1 object (a number per code word and per buffer byte), as older wavedbg wrote.
const V1_OBJECT: &str = r#"(
    format_version: 1,
    name: "old",
    source: None,
    code: [4026531840, 16],
    labels: {"top": 0},
    lines: [(0, 1)],
    launch: (workgroup_lanes: 32, grid: 1, shared_bytes: 0, scratch_bytes: 0),
    buffers: [(name: "b", size: 8, init: [1, 2, 3])],
    args: [(reg: 0, value: Address("b"))],
)"#;

#[test]
fn kernel_objects_store_fills_and_code_compactly() {
    // A 256 MiB fill is one run; so is a long stretch of identical instructions.
    let n = 256 << 20;
    let src = format!(
        ".buffer big, {n}\n.fill big, u32, 0x12345678, {}\n.buffer small, 16\n.init small, u8, 1, 2, 3\n{}end\n",
        n / 4,
        "nop\n".repeat(100_000),
    );
    let p = assemble(&src, "k.s", None).expect("assembles");
    let text = p.to_object().expect("serialises");
    assert!(text.len() < 4096, "{} bytes", text.len());
    assert!(text.contains("format_version: 3"));
    let back = Program::from_object(&text).expect("reads back");
    assert_eq!(back, p, "source -> object -> program is the same program");
    assert_eq!(back.to_object().unwrap(), text, "and writes the same text");
    // Code that does not repeat takes a few characters per word, not a number each.
    let mut src = String::new();
    for i in 0..10_000 {
        src.push_str(&format!(
            "vadd.u32 v{}, v{}, v{}\n",
            i % 128,
            (i / 7) % 128,
            i % 13
        ));
    }
    src.push_str("end\n");
    let p = assemble(&src, "k.s", None).expect("assembles");
    let text = p.to_object().unwrap();
    assert!(text.len() < 10_001 * 9, "{} bytes", text.len());
    assert_eq!(Program::from_object(&text).unwrap(), p);
}

#[test]
fn version_1_kernel_objects_are_still_read() {
    let p = Program::from_object(V1_OBJECT).expect("version 1 reads");
    assert_eq!(p.code, [4026531840, 16]);
    assert_eq!(p.buffers[0].init, [1, 2, 3]);
    assert_eq!(
        p.format_version,
        wavedbg_emulator::program::OBJECT_FORMAT_VERSION
    );
    // And is held to the same limits.
    let bad = V1_OBJECT.replace("init: [1, 2, 3]", "init: [1, 2, 3, 4, 5, 6, 7, 8, 9]");
    assert!(matches!(
        Program::from_object(&bad),
        Err(ObjectError::Invalid(ProgramError::InitTooLong { .. }))
    ));
}

#[test]
fn hostile_packed_fields_are_clean_errors() {
    let good = object_with(|p| {
        p.buffers.push(wavedbg_emulator::program::BufferDef {
            name: "b".into(),
            size: 64,
            init: vec![5; 64],
        })
    });
    assert!(good.contains("Fill("), "{good}");
    // Inserts `what` at the start of the first base64 run after `field`.
    let prefix = |field: &str, what: &str| {
        let at = good.find(field).expect("field") + field.len();
        let at = at + good[at..].find("Bytes(\"").expect("a run") + "Bytes(\"".len();
        format!("{}{what}{}", &good[..at], &good[at..])
    };
    let cases: Vec<(String, &str)> = vec![
        // A fill claiming more than the buffer holds is refused before it is expanded.
        (
            good.replace("count: 8", "count: 1000000000000"),
            "initial contents",
        ),
        (
            good.replace("count: 8", "count: 18446744073709551615"),
            "too long",
        ),
        (
            good.replacen("Fill(pattern: \"", "Fill(pattern: \"!", 1),
            "base64",
        ),
        (good.replace("BQUFBQUFBQU=", ""), "pattern of 0 bytes"),
        (prefix("code:", "A"), "base64"),
        (
            good.replacen(
                "code: [",
                "code: [Fill(pattern: \"AAAAAA==\", count: 1000000000000), ",
                1,
            ),
            "code words",
        ),
        (
            good.replacen("code: [", "code: [Fill(pattern: \"AAA=\", count: 1), ", 1),
            "whole words",
        ),
        (prefix("lines:", "/w=="), "line"),
        (prefix("lines:", "////"), "line"),
    ];
    for (text, want) in cases {
        assert_ne!(text, good, "the edit applies for {want}");
        match Program::from_object(&text) {
            Err(e) => assert!(e.to_string().contains(want), "{want}: {e}"),
            Ok(_) => panic!("accepted ({want})"),
        }
    }
    // Truncated anywhere: an error, never a panic.
    for cut in (0..good.len()).step_by(7) {
        if good.is_char_boundary(cut) {
            assert!(Program::from_object(&good[..cut]).is_err());
        }
    }
}
