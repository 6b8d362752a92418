//! Loading kernels as the debugger gets them: assembler errors without instructions or
//! without a file, kernel objects validated like assembler output, bounded launch options,
//! and arbitrary source or corrupted objects without a panic.

use super::fixtures::*;

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
