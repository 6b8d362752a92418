//! `.file` reads only under the kernel source's directory from every command that
//! assembles, unless `--allow-file-outside-dir` is given (docs/assembler.md).

mod bin;
use bin::wavedbg_in;

#[test]
fn file_outside_the_source_directory_needs_the_flag() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let k = root.join("k");
    std::fs::create_dir_all(&k).expect("mkdir");
    std::fs::write(root.join("secret.bin"), [1u8, 2, 3, 4]).expect("write");
    std::fs::write(
        k.join("k.s"),
        ".buffer b, 4\n.file b, \"../secret.bin\"\n.arg u[0:1], b\nend\n",
    )
    .expect("write");
    let commands: [&[&str]; 5] = [
        &["asm", "k/k.s", "-o", "k/k.wko"],
        &["run", "k/k.s"],
        &["check", "k/k.s"],
        &["elf", "k/k.s", "-o", "k/k.elf"],
        &["disasm", "k/k.s"],
    ];
    for args in commands {
        let (code, _, err) = wavedbg_in(root, args, "");
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(
            err.contains("k/k.s:2:10: error: `../secret.bin` is outside the kernel's directory"),
            "{args:?}: {err}"
        );
        assert!(err.contains("--allow-file-outside-dir"), "{err}");
        let mut allowed = args.to_vec();
        allowed.push("--allow-file-outside-dir");
        let (code, out, err) = wavedbg_in(root, &allowed, "");
        assert_eq!(code, 0, "{allowed:?}: {err}");
        if args[0] == "disasm" {
            assert!(out.contains(".init b, u32, 0x4030201"), "{out}");
        }
    }
    // The debuggers refuse it too (the REPL reads its commands from stdin).
    let (code, _, err) = wavedbg_in(root, &["repl", "k/k.s"], "quit\n");
    assert_ne!(code, 0);
    assert!(err.contains("outside the kernel's directory"), "{err}");
    let (code, _, err) = wavedbg_in(
        root,
        &["repl", "k/k.s", "--allow-file-outside-dir"],
        "quit\n",
    );
    assert_eq!(code, 0, "{err}");
    // So does replay, whose script names the kernel.
    std::fs::write(root.join("s.wdb"), "#! kernel k/k.s\nprint 1\n").expect("script");
    let (code, _, err) = wavedbg_in(root, &["replay", "s.wdb"], "");
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("outside the kernel's directory"), "{err}");
    let (code, out, err) = wavedbg_in(root, &["replay", "s.wdb", "--allow-file-outside-dir"], "");
    assert_eq!(code, 0, "{out}{err}");
}
