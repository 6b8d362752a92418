//! The `wavedbg` binary end to end: isa listing, asm/disasm round trip, run.

use std::path::Path;
use std::process::Command;

fn wavedbg(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_wavedbg"))
        .args(args)
        .output()
        .expect("run wavedbg");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn script(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scripts")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn isa_json_lists_338_spec_instructions_with_their_fields() {
    let (code, out, _) = wavedbg(&["isa", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let all = v.as_array().expect("array");
    let spec: Vec<&serde_json::Value> = all.iter().filter(|e| e["origin"] == "spec").collect();
    assert_eq!(spec.len(), 338);
    assert_eq!(spec.iter().filter(|e| e["unit"] == "lsu").count(), 301);
    assert_eq!(spec.iter().filter(|e| e["unit"] == "xlane").count(), 37);
    assert!(all.iter().any(|e| e["origin"] == "base"));
    let ld = all
        .iter()
        .find(|e| e["mnemonic"] == "ld.ubase.b32")
        .expect("ld.ubase.b32");
    assert_eq!(ld["format"], "M");
    assert_eq!(ld["opcode"], 0x15);
    assert_eq!(ld["fields"], serde_json::json!({"f5": 4, "sp": 1, "f2": 0}));
    assert_eq!(ld["latency"], "async:vm");
    assert_eq!(ld["flags"], serde_json::json!(["ld"]));
    assert_eq!(
        ld["operands"],
        serde_json::json!(["rd:v", "rs2:up^2", "rs1:v", "imm:s24", "cpol:cpol"])
    );
    let wl = all
        .iter()
        .find(|e| e["mnemonic"] == "writelane")
        .expect("writelane");
    assert_eq!(
        wl["operands"],
        serde_json::json!(["rd:v*", "rs2:u", "rs1:ln7"])
    );
    assert_eq!(wl["flags"], serde_json::json!(["ei", "xl"]));
}

#[test]
fn asm_then_disasm_round_trips() {
    let dir = tempfile::tempdir().expect("tempdir");
    let obj = dir.path().join("reduce.wko");
    let (code, _, err) = wavedbg(&[
        "asm",
        &script("reduce.s"),
        "-o",
        obj.to_str().expect("utf8"),
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, text, err) = wavedbg(&["disasm", obj.to_str().expect("utf8")]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("xred.add.u32 u8, v1"), "{text}");
    let again = dir.path().join("again.s");
    std::fs::write(&again, &text).expect("write");
    let obj2 = dir.path().join("again.wko");
    let (code, _, err) = wavedbg(&[
        "asm",
        again.to_str().expect("utf8"),
        "-o",
        obj2.to_str().expect("utf8"),
    ]);
    assert_eq!(code, 0, "{err}");
    let (_, text2, _) = wavedbg(&["disasm", obj2.to_str().expect("utf8")]);
    assert_eq!(text, text2);
}

#[test]
fn asm_errors_exit_nonzero_with_location() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = dir.path().join("bad.s");
    std::fs::write(&src, "  vadd.u32 v1, v2\n  ld.globl.b32 v1, v[2:3], 0\n").expect("write");
    let (code, _, err) = wavedbg(&["asm", src.to_str().expect("utf8")]);
    assert_ne!(code, 0);
    assert!(
        err.contains("bad.s:1:") && err.contains("bad.s:2:3") && err.contains("ld.global.b32"),
        "{err}"
    );
}

#[test]
fn run_prints_dumps_and_summary() {
    let (code, out, err) = wavedbg(&["run", &script("reduce.s"), "--dump", "out", "--seed", "3"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("00000820 00001820 00002820 00003820"), "{out}");
    assert!(
        out.contains("8 waves")
            && out.contains("160 wave-instructions")
            && out.contains("lane-ops"),
        "{out}"
    );
    let (code, out, _) = wavedbg(&["run", &script("reduce.s"), "--dump", "out", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["status"], "finished");
    assert_eq!(
        v["dumps"][0]["words"],
        serde_json::json!([2080, 6176, 10272, 14368])
    );
}

/// `run --threads N` prints what one thread prints (the JSON without its time), and says
/// on stderr when the launch ran on one thread and why.
#[test]
fn run_on_threads_prints_the_one_thread_result() {
    let json = |kernel: &str, threads: &str| {
        let (code, out, err) = wavedbg(&[
            "run",
            &script(kernel),
            "--dump",
            "out",
            "--json",
            "--threads",
            threads,
        ]);
        let mut v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
        v["elapsed_ms"] = serde_json::Value::Null;
        (code, v, err)
    };
    // reduce.s: each workgroup writes its own word of `out`.
    let (code, one, _) = json("reduce.s", "1");
    let (code2, two, err) = json("reduce.s", "2");
    assert_eq!((code, code2), (0, 0));
    assert_eq!(one, two);
    assert_eq!(err, "", "reduce.s ran in parallel");
    // histogram.s: every workgroup adds into the same bins with global atomics.
    let (_, one, _) = json("histogram.s", "1");
    let (_, three, err) = json("histogram.s", "3");
    assert_eq!(one, three);
    assert!(
        err.contains("ran on one thread: workgroup 0 writes global byte 0x")
            && err.contains("which workgroup 1 also touches"),
        "{err}"
    );
}

#[test]
fn run_reports_faults_with_context_and_exit_code() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = dir.path().join("oob.s");
    std::fs::write(&src, ".buffer b, 16\n.arg u[0:1], b\n vlaneid v0\n vshli v0, v0, 2\n ld.ubase.b32 v1, u[0:1], v0, 0\n end\n").expect("write");
    let (code, out, _) = wavedbg(&["run", src.to_str().expect("utf8")]);
    assert_eq!(code, 1);
    assert!(
        out.contains("unallocated")
            && out.contains("lanes 4-31")
            && out.contains("pc 0x000c")
            && out.contains("wave 0"),
        "{out}"
    );
    let (code, out, _) = wavedbg(&["run", src.to_str().expect("utf8"), "--dump", "nope"]);
    assert_ne!(code, 0, "{out}");
}

#[test]
fn no_arguments_without_a_terminal_says_so() {
    // `wavedbg` alone opens the TUI on the demo; with stdout piped it must refuse cleanly.
    let (code, out, err) = wavedbg(&[]);
    assert_ne!(code, 0);
    assert!(out.is_empty(), "nothing drawn: {out}");
    assert!(err.contains("terminal"), "{err}");
}

/// `run --json` gives lane masks as hex strings; a deadlock names each waiting wave's PC
/// and its barrier; disassembly writes a negative arithmetic immediate as it was written.
#[test]
fn run_json_lanes_are_hex_and_deadlocks_name_the_barrier() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = dir.path().join("oob.s");
    std::fs::write(&src, ".buffer b, 16\n.arg u[0:1], b\n vlaneid v0\n vshli v0, v0, 2\n ld.ubase.b32 v1, u[0:1], v0, 0\n end\n").expect("write");
    let (code, out, _) = wavedbg(&["run", src.to_str().expect("utf8"), "--json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["fault"]["lanes"], "0xfffffff0", "{out}");
    assert_eq!(v["fault"]["pc"], 12);

    let dl = dir.path().join("dl.s");
    std::fs::write(
        &dl,
        ".workgroup 64\n uwaveid u5\n br.unz u5, quit\nwait_here:\n barrier\n end\nquit:\n end\n",
    )
    .expect("write");
    let (code, out, _) = wavedbg(&["run", dl.to_str().expect("utf8"), "--json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(
        v["error"],
        "deadlock in workgroup 0: wave 0 (pc 0x000c) waits at the barrier at 0x0008 <wait_here>; wave 1 (exited) will never arrive"
    );

    let neg = dir.path().join("neg.s");
    std::fs::write(
        &neg,
        " uaddi u6, u6, -1\n vmovi v1, -1\n vandi v1, v1, -256\n end\n",
    )
    .expect("write");
    let (code, out, _) = wavedbg(&["disasm", neg.to_str().expect("utf8")]);
    assert_eq!(code, 0);
    assert!(
        out.contains("uaddi u6, u6, -1 ")
            && out.contains("vmovi v1, -1 ")
            && out.contains("vandi v1, v1, 0xffffff00 "),
        "{out}"
    );
}
