//! `wavedbg check` end to end: the planted-bug kernels are found (text and JSON), their
//! fixed versions and every example kernel are clean, and the seeded-schedule comparison
//! finds an order-dependent result and names the finding that explains it.

use std::path::{Path, PathBuf};
use std::process::Command;

fn wavedbg(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_wavedbg"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run wavedbg");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn bug(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scripts/bugs")
            .join(name),
    )
    .expect("read the bug kernel")
}

/// Writes `text` with `from` replaced by `to` (which must occur) to a temporary file.
fn fixed(dir: &tempfile::TempDir, name: &str, from: &str, to: &str) -> PathBuf {
    let text = bug(name);
    assert!(text.contains(from), "{name}: `{from}` not found");
    let path = dir.path().join(name);
    std::fs::write(&path, text.replacen(from, to, 1)).expect("write");
    path
}

fn json_lines(out: &str) -> Vec<serde_json::Value> {
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn the_missing_barrier_is_a_race_and_an_order_dependent_result() {
    let (code, out, err) = wavedbg(&["check", "scripts/bugs/reduce_nobarrier.s", "--seeds", "8"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("error: data race on shared:0x80 (4 bytes) in workgroup 0, no barrier between (epoch 0)"), "{out}");
    // Both sides, with their source lines.
    assert!(
        out.contains(
            "write at 0x0038: st.shared.b32 v4, v2, 0  (scripts/bugs/reduce_nobarrier.s:34)"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "read at 0x0048: ld.shared.b32 v5, v2, 128  (scripts/bugs/reduce_nobarrier.s:38)"
        ),
        "{out}"
    );
    assert!(
        out.contains("| ld.shared.b32 v5, v2, 128   ; shared[t + 32], stored by wave 1"),
        "{out}"
    );
    assert!(
        out.contains(
            "error: 32 words of shared (0x80, 0x84, 0x88, ..., 0xfc; 4 bytes each) are read before anything wrote them in this launch"
        ),
        "{out}"
    );
    assert!(
        out.contains("error: the result depends on the schedule: the word at out+0x4"),
        "{out}"
    );
    assert!(out.contains("with seed 0 and"), "{out}");
    assert!(out.contains("  explained by #2: data race"), "{out}");
    // Each distinct finding once: the race of every workgroup and either order is one.
    assert_eq!(out.matches("error: data race").count(), 1, "{out}");
    // The explaining finding past --max-findings is named as not shown (and left out of
    // the JSON, whose indices name printed objects).
    let args = [
        "check",
        "scripts/bugs/reduce_nobarrier.s",
        "--seeds",
        "8",
        "--max-findings",
        "1",
    ];
    let (_, out, _) = wavedbg(&args);
    assert!(
        out.contains("  explained by #2 (not shown: past --max-findings): data race"),
        "{out}"
    );
    let (_, out, _) = wavedbg(&[&args[..], &["--json"]].concat());
    let difference = json_lines(&out)
        .into_iter()
        .find(|v| v.get("seeds").is_some() && v.get("values").is_some())
        .expect("the difference");
    assert!(difference.get("explained_by").is_none(), "{difference}");
}

/// Barrier counts are kept modulo 2^16 in the shadow's records: a write 65,536 barriers
/// before a read was taken for one of the read's interval (a race reported at "epoch
/// 65536" against "epoch 0"). A race in that interval is still one.
#[test]
fn sixty_five_thousand_barriers_still_order_what_they_order() {
    let (code, out, err) = wavedbg(&["check", "tests/kernels/epoch_wrap.s"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(": 0 findings"), "{out}");
    let (code, out, err) = wavedbg(&["check", "tests/kernels/epoch_wrap_race.s"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("#1 error: data race on shared:0x0 (4 bytes) in workgroup 0, no barrier between (epoch 65536)"),
        "{out}"
    );
    assert!(
        out.contains("  before  wave 0 (workgroup 0, epoch 65536)"),
        "{out}"
    );
}

/// A difference no finding explains names the plain read of an atomically updated word
/// as a cause (the histogram's missing merge barrier); it suggested only atomics
/// applied in another order, "e.g. float adds", for a kernel of integer adds.
#[test]
fn an_unexplained_difference_names_reads_of_atomically_updated_words() {
    let k = "tests/kernels/histogram_merge_no_barrier.s";
    let (code, out, err) = wavedbg(&["check", k, "--seeds", "4"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains(": 0 findings"), "{out}");
    assert!(
        out.contains("error: the result depends on the schedule: the word at out+"),
        "{out}"
    );
    assert!(
        out.contains("  no finding explains it: atomics ran in another order, so a plain read of a word that other waves update with atomics (not a race in this model: docs/sanitizer.md) saw another value"),
        "{out}"
    );
}

#[test]
fn the_load_before_its_wait_is_named_with_the_load() {
    let (code, out, _) = wavedbg(&["check", "scripts/bugs/load_before_wait.s", "--json"]);
    assert_eq!(code, 1);
    let found = json_lines(&out);
    assert_eq!(found.len(), 1, "{out}");
    let f = &found[0];
    assert_eq!(f["kind"], "read-before-wait");
    assert_eq!(f["severity"], "error");
    assert_eq!(f["reg"], serde_json::json!(["vector", 3]));
    assert_eq!(f["counter"], "vm");
    assert_eq!(f["at"]["pc"], 0x24);
    assert_eq!(f["at"]["line"], 28);
    assert_eq!(f["at"]["instruction"], "vmuli.u32 v4, v3, 3");
    assert_eq!(f["other"]["pc"], 0x1c);
    assert_eq!(f["other"]["instruction"], "ld.ubase.b32 v3, u[0:1], v2, 0");
    // Two workgroups, one wave each: seen twice, reported once.
    assert_eq!(f["count"], 2);
}

#[test]
fn the_non_atomic_histogram_races_between_waves() {
    let (code, out, _) = wavedbg(&[
        "check",
        "scripts/bugs/histogram_race.s",
        "--json",
        "--seeds",
        "2",
    ]);
    assert_eq!(code, 1);
    let found = json_lines(&out);
    let races: Vec<_> = found.iter().filter(|f| f["kind"] == "race").collect();
    assert!(!races.is_empty(), "{out}");
    for r in &races {
        assert_eq!(r["space"], "shared");
        assert_ne!(r["at"]["wave"], r["other"]["wave"], "{r}");
        for side in [&r["at"], &r["other"]] {
            let instr = side["instruction"].as_str().unwrap_or("");
            assert!(
                instr.starts_with("st.shared.b32 v7") || instr.starts_with("ld.shared.b32 v7"),
                "{r}"
            );
        }
    }
    let diff = found
        .iter()
        .find(|f| f["kind"] == "order-dependent-result")
        .expect("the lost updates change the counts");
    assert_eq!(diff["buffer"], "out");
    assert!(diff["explained_by"].is_u64(), "{diff}");
}

#[test]
fn the_fixed_kernels_are_clean() {
    let dir = tempfile::tempdir().expect("tempdir");
    let kernels = [
        fixed(&dir, "reduce_nobarrier.s", "                                ; BUG: no barrier here", "    barrier"),
        fixed(&dir, "load_before_wait.s", "    vmuli.u32 v4, v3, 3         ; BUG: v3 is read before wait.vm\n    wait.vm 0", "    wait.vm 0\n    vmuli.u32 v4, v3, 3"),
        fixed(
            &dir,
            "histogram_race.s",
            "    ld.shared.b32 v7, v6, 0\n    wait.ls 0\n    vaddi.u32 v7, v7, 1\n    st.shared.b32 v7, v6, 0     ; BUG: not atomic",
            "    vmovi v7, 1\n    atom.shared.add.u32 v7, v6, 0",
        ),
    ];
    for k in &kernels {
        let k = k.display().to_string();
        let (code, out, err) = wavedbg(&["check", &k, "--seeds", "6"]);
        assert_eq!(code, 0, "{k}: {out}{err}");
        assert!(
            out.contains(": 0 findings (0 errors, 0 warnings) in 7 runs"),
            "{out}"
        );
        assert!(
            out.contains("every buffer is identical under 6 seeded schedules"),
            "{out}"
        );
    }
}

/// Lanes masked off for good (`if (gid >= n) return;` as an EXEC mask) that come back
/// only in the epilogue restoring EXEC before `end` skipped a barrier but rejoin no work:
/// clean. The same lanes storing after they come back rejoin work: reported at the
/// `exec.set`, naming the barrier they skipped.
#[test]
fn an_epilogue_restoring_exec_after_a_barrier_is_clean_and_work_after_it_is_not() {
    let k = "tests/kernels/tail_epilogue.s";
    let (code, out, err) = wavedbg(&["check", k, "--seeds", "6"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(": 0 findings (0 errors, 0 warnings) in 7 runs"),
        "{out}"
    );
    assert!(
        out.contains("every buffer is identical under 6 seeded schedules"),
        "{out}"
    );

    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(k))
        .expect("read the kernel");
    let epilogue = "    exec.set u8                  ; epilogue restores EXEC\n    end";
    assert!(text.contains(epilogue));
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("tail_store.s");
    let store = "    exec.set u8\n    st.ubase.b32 v0, u[2:3], v2, 0\n    end";
    std::fs::write(&path, text.replacen(epilogue, store, 1)).expect("write");
    let p = path.display().to_string();
    let (code, out, err) = wavedbg(&["check", &p]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains(": 1 finding (1 error, 0 warnings)"), "{out}");
    assert!(
        out.contains(
            "#1 error: lanes 18-31 skipped a barrier the rest of wave 1 waited at, and rejoin it"
        ),
        "{out}"
    );
    // At the rejoin (line 32), naming the barrier (line 25).
    assert!(out.contains("tail_store.s:32)"), "{out}");
    assert!(out.contains("tail_store.s:25)"), "{out}");
}

#[test]
fn every_example_kernel_is_clean_under_every_detector() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("scripts") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "s") {
            let p = path.display().to_string();
            let (code, out, err) = wavedbg(&["check", &p, "--seeds", "3"]);
            assert_eq!(code, 0, "{p}: {out}{err}");
            n += 1;
        }
    }
    assert!(n >= 10);
}

#[test]
fn a_kernel_that_cannot_be_read_or_launched_is_an_error_not_a_finding() {
    let (code, _, err) = wavedbg(&["check", "no/such/kernel.s"]);
    assert_eq!(code, 1);
    assert!(err.contains("no/such/kernel.s"), "{err}");
    let (code, _, err) = wavedbg(&["check", "scripts/reduce.s", "--workgroup", "33"]);
    assert_eq!(code, 1);
    assert!(err.contains("multiple of 32"), "{err}");
}

/// A deadlocked workgroup is named with its barrier's line and the wave that left; the
/// other workgroups run to their end under every seed, so the seeds' buffers agree and
/// nothing blames the schedule.
#[test]
fn a_deadlock_is_named_and_the_other_workgroups_finish_under_every_seed() {
    let k = "tests/kernels/exit_before_barrier.s";
    let (code, out, err) = wavedbg(&["check", k, "--seeds", "4"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains(&format!(
            "error (every run): deadlock in workgroup 1: the barrier at {k}:23 (0x0054) can never complete; wave 2 waiting, wave 3 (exited at {k}:25) will never arrive; the launch ran every other workgroup it could"
        )),
        "{out}"
    );
    assert!(
        out.contains("every buffer is identical under 4 seeded schedules"),
        "{out}"
    );
    assert!(!out.contains("depends on the schedule"), "{out}");
    let (_, out, _) = wavedbg(&["check", "--json", k, "--seeds", "2"]);
    let end = json_lines(&out)
        .into_iter()
        .find(|v| v["kind"] == "launch-error")
        .unwrap_or_else(|| panic!("no launch error: {out}"));
    assert_eq!(end["end"], "deadlock");
    assert_eq!(end["workgroup"], 1);
    assert_eq!(end["seeds"], serde_json::json!([0, 1, 2]));
    assert_eq!(end["waiting"][0]["wave"], 2);
    assert_eq!(end["waiting"][0]["line"], 23);
    assert_eq!(end["missing"][0]["wave"], 3);
    assert_eq!(end["missing"][0]["state"], "exited");
    assert_eq!(end["missing"][0]["line"], 25);
}

/// Each faulting wave is named with file:line, wave, lanes and address (every field in
/// JSON); the others run on, workgroups that wait for a faulted wave's slot are named as
/// not started, and the seeds' buffers agree.
#[test]
fn faults_are_named_with_their_line_and_the_rest_of_the_launch_runs_on() {
    let k = "tests/kernels/store_past_the_end.s";
    let (code, out, err) = wavedbg(&["check", k, "--resident", "2", "--seeds", "3"]);
    assert_eq!(code, 1, "{out}{err}");
    for (wave, wg, addr) in [
        (4, 2, "0x100001200"),
        (5, 2, "0x100001280"),
        (8, 4, "0x100000400"),
    ] {
        let line = format!(
            "error (every run): fault at {k}:23: global access of 4 bytes to unallocated memory [wave {wave} (workgroup {wg}), pc 0x0048, address {addr}, lanes 0-31, `st.ubase.b32 v1, u[0:1], v0, 0`]"
        );
        assert!(out.contains(&line), "{line}\n{out}");
    }
    assert!(
        out.contains("error (every run): workgroups 5-11 did not start: every slot holds a workgroup with a faulted wave"),
        "{out}"
    );
    assert!(
        out.contains("every buffer is identical under 3 seeded schedules"),
        "{out}"
    );
    assert!(!out.contains("atomics"), "{out}");
    // All resident: every workgroup starts, and only the faults are reported.
    let (_, out, _) = wavedbg(&["check", k, "--resident", "12"]);
    assert!(!out.contains("did not start"), "{out}");
    // Workgroup 2 and every one from 4 (past the 1 KiB buffer), two waves each.
    assert_eq!(out.matches("error: fault at").count(), 18, "{out}");
    let (_, out, _) = wavedbg(&["check", "--json", k, "--resident", "2"]);
    let fault = json_lines(&out)
        .into_iter()
        .find(|v| v["end"] == "fault")
        .unwrap_or_else(|| panic!("no fault: {out}"));
    assert_eq!(fault["file"], k);
    assert_eq!(fault["line"], 23);
    assert_eq!(fault["wave"], 4);
    assert_eq!(fault["workgroup"], 2);
    assert_eq!(fault["lanes"], "0xffffffff");
    assert_eq!(fault["pc"], 0x48);
    assert_eq!(fault["addr"], 0x1_0000_1200u64);
    assert_eq!(fault["len"], 4);
    assert_eq!(fault["signal"], "SIGSEGV");
    assert_eq!(fault["instruction"], "st.ubase.b32 v1, u[0:1], v0, 0");
}

#[test]
fn seeded_runs_on_any_number_of_threads_give_the_same_report() {
    // Findings, an order-dependent result, faults and deadlocks: everything the merge of
    // seeded runs puts in the report, which must not depend on which thread ran first.
    let kernels = [
        "scripts/bugs/reduce_nobarrier.s",
        "scripts/bugs/histogram_race.s",
        "tests/kernels/exit_before_barrier.s",
        "tests/kernels/store_past_the_end.s",
    ];
    for kernel in kernels {
        for json in [false, true] {
            let mut args = vec!["check", kernel, "--seeds", "7", "--threads", "1"];
            if json {
                args.push("--json");
            }
            let one = wavedbg(&args);
            assert_ne!(one.1, "", "{kernel}: {}", one.2);
            for threads in ["2", "3", "16"] {
                args[5] = threads;
                assert_eq!(wavedbg(&args), one, "{kernel} --threads {threads}");
            }
        }
    }
}

/// Races between the same two instructions seen in both orders are one finding; each
/// sighting's waves and lanes stay on the side of the instruction they executed (the
/// second order is turned round before it joins), in text and JSON.
#[test]
fn a_race_seen_both_ways_keeps_each_wave_on_its_own_side() {
    // Wave 1 lane 0 writes shared 0x80 after wave 0 lane 31 read it; then wave 1 lane 31
    // reads shared 0x0 after wave 0 lane 0 wrote it.
    let k = "tests/kernels/stencil_wrap_race.s";
    let (code, out, err) = wavedbg(&["check", k]);
    assert_eq!(code, 1, "{out}{err}");
    for line in [
        format!("  now     wave 1 (workgroup 0, epoch 0) lane 0 write at 0x0038: st.shared.b32 v4, v2, 0  ({k}:24)"),
        format!("  before  wave 0 (workgroup 0, epoch 0) lane 31 read at 0x005c: ld.shared.b32 v6, v5, 0  ({k}:30)"),
        "  also now: waves 0, 2-3 lane 0".to_string(),
        "  also before: waves 1-3 lane 31".to_string(),
    ] {
        assert!(out.contains(&line), "{line}\n{out}");
    }
    // Only the producer (wave 2) stores the flag; waves 0 and 1 poll it with atomics.
    let k = "tests/kernels/plain_flag.s";
    let (_, out, _) = wavedbg(&["check", "--json", k]);
    let flag = json_lines(&out)
        .into_iter()
        .find(|v| v["kind"] == "race" && v["at"]["line"] == 27)
        .unwrap_or_else(|| panic!("no race at the flag's store: {out}"));
    assert_eq!(flag["at"]["wave"], 2);
    // No other wave stored the flag; wave 0 polled it too, on the other side.
    assert_eq!(
        flag["also"],
        serde_json::json!([{"wave": 0, "lanes": "0xffffffff", "side": "other"}]),
        "{flag}"
    );
    assert_eq!(flag["other"]["line"], 34);
    assert_eq!(flag["other"]["wave"], 1);
    assert_eq!(flag["other"]["lanes"], "0xffffffff");
}

/// A wave that faults after the rest of its workgroup reached the barrier deadlocks that
/// workgroup, in every workgroup and under every seed, not only in the first slot.
#[test]
fn a_fault_after_the_others_wait_deadlocks_every_workgroup_under_every_seed() {
    let k = "tests/kernels/fault_after_wait.s";
    let (code, out, err) = wavedbg(&["check", k, "--seeds", "2"]);
    assert_eq!(code, 1, "{out}{err}");
    for (wg, waiting, gone) in [(0, 0, 1), (1, 2, 3)] {
        let line = format!(
            "error (every run): deadlock in workgroup {wg}: the barrier at {k}:27 (0x0050 <wait_here>) can never complete; wave {waiting} waiting, wave {gone} (faulted at {k}:24) will never arrive"
        );
        assert!(out.contains(&line), "{line}\n{out}");
    }
}

/// Workgroups that wait for a slot a deadlocked workgroup holds never start: `check`
/// names them after the deadlock (text and JSON), whether faults hold slots too or not.
#[test]
fn workgroups_behind_a_deadlock_are_named_as_not_started() {
    let k = "tests/kernels/exit_before_barrier.s";
    let (code, out, err) = wavedbg(&["check", k, "--resident", "1"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("error: deadlock in workgroup 1:"), "{out}");
    assert!(
        out.contains("error: workgroups 2-3 did not start: every slot holds a deadlocked workgroup (its waves wait at the barrier for ever)"),
        "{out}"
    );
    let k = "tests/kernels/fault_after_wait.s";
    let (_, out, _) = wavedbg(&["check", k, "--grid", "3", "--resident", "1"]);
    assert!(
        out.contains("error: workgroups 1-2 did not start: every slot holds a deadlocked workgroup or one with a faulted wave"),
        "{out}"
    );
    let (_, out, _) = wavedbg(&["check", "--json", k, "--grid", "3", "--resident", "1"]);
    let stalled = json_lines(&out)
        .into_iter()
        .find(|v| v["end"] == "stalled")
        .unwrap_or_else(|| panic!("no stall: {out}"));
    assert_eq!(stalled["workgroups_started"], 1);
    assert_eq!(stalled["grid"], 3);
}

/// A result that differs between seeds is shown as the aligned word holding the first
/// differing byte, said to be a word, in text and JSON (`len`, `values`), not as one byte
/// of it passed off as the value.
#[test]
fn an_order_dependent_result_shows_the_word_it_is_in() {
    // The workgroups' sums add up to 0x00020200 with seed 0 and 0x0001a9c0 with seed 1:
    // their low bytes, 0x00 and 0xc0, say little.
    let k = "tests/kernels/tree_reduce_race.s";
    let (code, out, err) = wavedbg(&["check", k, "--seeds", "1"]);
    assert_eq!(code, 1, "{out}{err}");
    let line = "error: the result depends on the schedule: the word at out+0x0 (global 0x100000000) is 0x00020200 with seed 0 and 0x0001a9c0 with seed 1";
    assert!(out.contains(line), "{line}\n{out}");
    let (_, out, _) = wavedbg(&["check", "--json", k, "--seeds", "1"]);
    let diff = json_lines(&out)
        .into_iter()
        .find(|v| v["kind"] == "order-dependent-result")
        .unwrap_or_else(|| panic!("no difference: {out}"));
    assert_eq!(diff["offset"], 0);
    assert_eq!(diff["len"], 4);
    assert_eq!(
        diff["values"],
        serde_json::json!([0x0002_0200, 0x0001_a9c0])
    );
    assert_eq!(
        diff["message"],
        "the word at out+0x0 differs between seeds 0 and 1"
    );
}

/// A barrier deadlock is one sighting per workgroup, like every other finding's sightings:
/// four deadlocked workgroups count 4 and list the other three's waiting waves, and the
/// repeats of a deadlock as the run is asked to go on do not count.
#[test]
fn a_deadlock_in_every_workgroup_counts_each_workgroup_once() {
    let k = "tests/kernels/exit_early_every_group.s";
    let (code, out, err) = wavedbg(&["check", "--json", k]);
    assert_eq!(code, 1, "{out}{err}");
    let lines = json_lines(&out);
    assert_eq!(
        lines.iter().filter(|v| v["end"] == "deadlock").count(),
        4,
        "{out}"
    );
    let f = lines
        .iter()
        .find(|v| v["kind"] == "barrier-deadlock")
        .unwrap_or_else(|| panic!("no deadlock finding: {out}"));
    assert_eq!(f["count"], 4, "{f}");
    assert_eq!(f["at"]["wave"], 1);
    // The waiting waves are the `at` side's; the gone waves of the other workgroups are
    // the `other` side's.
    let side = |s: &str| -> Vec<_> {
        f["also"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter(|w| w["side"] == s)
                    .map(|w| w["wave"].clone())
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(side("at"), vec![3, 5, 7], "{f}");
    assert_eq!(side("other"), vec![2, 4, 6], "{f}");
}

/// A uniform register has one value for the wave: its uninitialised read names no lanes
/// (it said `lanes 0-31`); a vector register's names the lanes that read it.
#[test]
fn an_uninitialised_uniform_register_names_no_lanes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let k = dir.path().join("uninit.s");
    std::fs::write(
        &k,
        ".kernel uninit\n    umovi u4, 1\n    uadd u6, u4, u5\n    vadd.u32 v2, v1, v1\n    end\n",
    )
    .expect("write");
    let (code, out, err) = wavedbg(&["check", &k.to_string_lossy()]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains(": u5 is read before it was written\n"),
        "{out}"
    );
    assert!(
        out.contains(": v1 is read before it was written (lanes 0-31)\n"),
        "{out}"
    );
}

/// Lanes of one store that conflict at several addresses name each of them: lanes 0-1
/// write word 0 and lanes 3-5 word 2 with different values (it named only the first
/// address, under all five lanes).
#[test]
fn a_store_conflicting_at_several_addresses_names_each() {
    let dir = tempfile::tempdir().expect("tempdir");
    let k = dir.path().join("scatter.s");
    std::fs::write(
        &k,
        ".kernel scatter
.buffer keys, 128
.init keys, u32, 0,0,1,2,2,2,3,4, 5,6,7,8,9,10,11,12, 13,14,15,16,17,18,19,20, 21,22,23,24,25,26,27,28
.buffer out, 128
.arg u[0:1], keys
.arg u[2:3], out
    vlaneid v0
    vshli v1, v0, 2
    ld.ubase.b32 v2, u[0:1], v1, 0
    wait.vm 0
    vshli v4, v2, 2
    st.ubase.b32 v0, u[2:3], v4, 0
    wait.vst 0
    end
",
    )
    .expect("write");
    let (code, out, err) = wavedbg(&["check", &k.to_string_lossy()]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("lanes 0-1, 3-5 of one store write different values to 2 places of global (0x100020000, 0x100020008; 4 bytes each; the last lane wins at each)"),
        "{out}"
    );
    let (_, json, _) = wavedbg(&["check", &k.to_string_lossy(), "--json"]);
    assert!(
        json.contains(r#""addrs":[4295098368,4295098376]"#),
        "{json}"
    );
}

/// The instruction budget ends the whole run: the workgroups it kept from starting are
/// named, as a fault's or a deadlock's are (workgroup 2 waits for a slot the spinning
/// workgroups 0 and 1 hold).
#[test]
fn a_spent_budget_names_the_workgroups_that_did_not_start() {
    let dir = tempfile::tempdir().expect("tempdir");
    let k = dir.path().join("spin.s");
    std::fs::write(&k, ".kernel spin\n.grid 3\nloop:\n    br loop\n    end\n").expect("write");
    let k = k.to_string_lossy();
    let args = ["check", &k, "--resident", "2", "--max-instructions", "1000"];
    let (code, out, err) = wavedbg(&args);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("instruction budget of 1000 exhausted"),
        "{out}"
    );
    assert!(
        out.contains("workgroup 2 did not start: the instruction budget ran out first"),
        "{out}"
    );
}

/// A wave-specialised kernel (a producer wave and a consumer wave, each with its own
/// barrier sites, counts matching) is warned about once per pair of barriers, whichever
/// wave arrived last; the warning fails the check unless its kind is allowed.
#[test]
fn a_barrier_mismatch_is_one_finding_per_pair_and_can_be_allowed() {
    let k = "tests/kernels/sanitizer/wave_specialised.s";
    let (code, out, err) = wavedbg(&["check", k, "--seeds", "8"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains(": 2 findings (0 errors, 2 warnings) in 9 runs"),
        "{out}"
    );
    for lines in ["lines 26 and 35", "lines 27 and 42"] {
        let head = format!("warning: the waves of workgroup 0 were released together from barriers at different PCs ({lines}): a barrier counts the waves that arrive wherever they wait");
        assert_eq!(out.matches(&head).count(), 1, "{head}\n{out}");
    }
    assert!(
        out.contains("--allow barrier-mismatch keeps it from failing the check"),
        "{out}"
    );
    let (code, out, err) = wavedbg(&["check", k, "--seeds", "8", "--allow", "barrier-mismatch"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(": 2 findings (0 errors, 2 warnings; 2 allowed by --allow) in 9 runs"),
        "{out}"
    );
    assert!(out.contains("#1 warning (allowed): the waves"), "{out}");
    let (_, out, _) = wavedbg(&["check", k, "--json", "--allow", "race,barrier-mismatch"]);
    assert!(
        json_lines(&out).iter().all(|v| v["allowed"] == true),
        "{out}"
    );
    // Allowing another kind does not accept it; an unknown kind is refused by name.
    let (code, _, _) = wavedbg(&["check", k, "--allow", "race"]);
    assert_eq!(code, 1);
    let (code, _, err) = wavedbg(&["check", k, "--allow", "mismatch"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("no finding kind `mismatch`: one of race, same-instruction,"),
        "{err}"
    );
}

/// A deadlock is reported as the launch ends: a wave that reached the barrier after the
/// deadlock was decided (wave 2, behind wave 1's early exit) is waiting too, in the
/// launch error and in the finding, text and JSON.
#[test]
fn a_deadlock_lists_every_wave_left_waiting() {
    let k = "tests/kernels/sanitizer/deadlock_late_waiter.s";
    let (code, out, err) = wavedbg(&["check", k]);
    assert_eq!(code, 1, "{out}{err}");
    for (wg, a, gone, b) in [(0, 0, 1, 2), (1, 3, 4, 5), (2, 6, 7, 8)] {
        let line = format!("error: deadlock in workgroup {wg}: the barrier at {k}:19 (0x0038) can never complete; wave {a}, wave {b} waiting, wave {gone} (exited at {k}:23) will never arrive");
        assert!(out.contains(&line), "{line}\n{out}");
    }
    assert!(
        out.contains("  waves: wave 0 at barrier at 0x0038, wave 1 exited at 0x0048, wave 2 at barrier at 0x0038"),
        "{out}"
    );
    let (_, out, _) = wavedbg(&["check", k, "--json"]);
    let lines = json_lines(&out);
    let end = lines
        .iter()
        .find(|v| v["end"] == "deadlock" && v["workgroup"] == 0)
        .unwrap_or_else(|| panic!("{out}"));
    let waiting: Vec<&serde_json::Value> = end["waiting"]
        .as_array()
        .map(|a| a.iter().map(|w| &w["wave"]).collect())
        .unwrap_or_default();
    assert_eq!(waiting, [0, 2], "{out}");
    let finding = lines
        .iter()
        .find(|v| v["kind"] == "barrier-deadlock")
        .unwrap_or_else(|| panic!("{out}"));
    assert_eq!(finding["waves"][2]["state"], "at_barrier", "{out}");
}

/// A field that does not apply is left out of the JSON, never an empty or zero
/// placeholder: no `waves` but for barrier findings, no `len` or `addr` but for memory,
/// no `addrs` for one address, no `epoch` or `access` on a side they are not about, no
/// `null` anywhere; the budget's fault names no lanes, address or length.
#[test]
fn json_leaves_out_what_does_not_apply() {
    let (_, out, _) = wavedbg(&["check", "--json", "scripts/bugs/load_before_wait.s"]);
    let (_, more, _) = wavedbg(&[
        "check",
        "--json",
        "tests/kernels/sanitizer/deadlock_late_waiter.s",
    ]);
    let (_, budget, _) = wavedbg(&[
        "check",
        "--json",
        "tests/kernels/sanitizer/forever.s",
        "--max-instructions",
        "1000",
    ]);
    fn no_placeholder(v: &serde_json::Value, path: &str) {
        match v {
            serde_json::Value::Null => panic!("{path} is null"),
            serde_json::Value::Array(a) => {
                assert!(!a.is_empty() || path.ends_with("missing"), "{path} is []");
                for (i, x) in a.iter().enumerate() {
                    no_placeholder(x, &format!("{path}[{i}]"));
                }
            }
            serde_json::Value::Object(o) => {
                for (k, x) in o {
                    if k == "len" || k == "lanes" {
                        assert!(x != 0 && x != "0x00000000", "{path}.{k} is {x}");
                    }
                    no_placeholder(x, &format!("{path}.{k}"));
                }
            }
            _ => {}
        }
    }
    let all: Vec<serde_json::Value> = [out, more, budget.clone()]
        .iter()
        .flat_map(|o| json_lines(o))
        .collect();
    assert!(all.len() >= 4, "{all:?}");
    for v in &all {
        no_placeholder(v, "");
        if v["kind"] != "barrier-deadlock" && v["kind"] != "barrier-mismatch" {
            assert!(v.get("waves").is_none(), "{v}");
        }
    }
    let hazard = all
        .iter()
        .find(|v| v["kind"] == "read-before-wait")
        .expect("hazard");
    for field in ["len", "addr", "addrs", "space", "fence"] {
        assert!(hazard.get(field).is_none(), "{field}: {hazard}");
    }
    let fault = json_lines(&budget).remove(0);
    assert_eq!(fault["end"], "fault", "{fault}");
    for field in ["lanes", "addr", "len"] {
        assert!(fault.get(field).is_none(), "{field}: {fault}");
    }
}

/// Faults that differ only in their wave are one line naming the waves and workgroups as
/// ranges (4,096 waves faulting alike on one instruction were 4,096 lines); JSON keeps an
/// object per wave.
#[test]
fn faults_alike_but_for_the_wave_are_one_line() {
    let k = "tests/kernels/sanitizer/manyfault.s";
    let (code, out, err) = wavedbg(&["check", k, "--resident", "128"]);
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(out.lines().count(), 3, "{out}");
    assert!(
        out.contains(&format!("error: fault at {k}:7: misaligned shared access of 4 bytes (needs 4-byte alignment) [4096 waves 0-4095 (workgroups 0-127), pc 0x0004, address 0x1,")),
        "{out}"
    );
    let (_, out, _) = wavedbg(&["check", k, "--resident", "2", "--json"]);
    let faults = json_lines(&out)
        .into_iter()
        .filter(|v| v["end"] == "fault")
        .count();
    assert_eq!(faults, 64, "{out}");
}

/// The other waves a finding was seen in are kept for both of its sides, each labelled by
/// its side: a tree reduction without its first barrier names the writers and the readers
/// (only the writers were kept, under `before` and unlabelled), and two waves that each
/// write then read the other's words name both waves on both sides.
#[test]
fn other_waves_are_kept_for_both_sides_and_labelled() {
    let k = "tests/kernels/sanitizer/tree_reduce_no_first_barrier.s";
    let (code, out, err) = wavedbg(&["check", k]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("\n  also now: waves 3, 6-7, 10-11, 14-15 lanes 0-31\n  also before: waves 1, 4-5, 8-9, 12-13 lanes 0-31\n"), "{out}");
    // A finding with one side keeps `also in`.
    assert!(
        out.contains("\n  also in: waves 1, 4-5, 8-9, 12-13 lanes 0-31\n"),
        "{out}"
    );
    let k = "tests/kernels/sanitizer/same_workgroup_global.s";
    let (code, out, err) = wavedbg(&["check", k]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("\n  also now: wave 1 lanes 0-31\n  also before: wave 0 lanes 0-31"),
        "{out}"
    );
    let (_, out, _) = wavedbg(&["check", k, "--json"]);
    let f = json_lines(&out).remove(0);
    assert_eq!(
        f["also"],
        serde_json::json!([
            {"wave": 1, "lanes": "0xffffffff", "side": "at"},
            {"wave": 0, "lanes": "0xffffffff", "side": "other"}
        ]),
        "{f}"
    );
    assert!(f.get("also_other").is_none(), "{f}");
}

/// A read of words some bytes of which were written names the bytes nothing wrote (it said
/// the whole words were unwritten), in text and JSON (`unwritten`); an atomic, which marks
/// the bytes as it checks them, too.
#[test]
fn a_partly_written_word_names_its_unwritten_bytes() {
    let k = "tests/kernels/sanitizer/partly_written_words.s";
    let (code, out, err) = wavedbg(&["check", k]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("error: 32 words of shared (0x0, 0x4, 0x8, ..., 0x7c; 4 bytes each) are read before anything wrote their bytes 0x1-0x3, 0x5-0x7, 0x9-0xb, ..., 0x7d-0x7f in this launch (the other bytes were written)\n"), "{out}");
    let (_, out, _) = wavedbg(&["check", k, "--json"]);
    let f = json_lines(&out).remove(0);
    let unwritten = f["unwritten"].as_array().cloned().unwrap_or_default();
    assert_eq!(unwritten.len(), 32, "{f}");
    assert_eq!(
        unwritten[0],
        serde_json::json!({"addr": 1, "len": 3}),
        "{f}"
    );
    assert_eq!(
        unwritten[31],
        serde_json::json!({"addr": 125, "len": 3}),
        "{f}"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let k = dir.path().join("partial_atomic.s");
    std::fs::write(
        &k,
        ".kernel partial_atomic\n.shared 16\n    vmovi v0, 0\n    vmovi v1, 1\n    st.shared.b16 v1, v0, 4\n    wait.ls 0\n    atom.shared.add.u32 v1, v0, 4\n    wait.ls 0\n    end\n",
    )
    .expect("write");
    let (code, out, err) = wavedbg(&["check", &k.to_string_lossy()]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("error: shared:0x4 (4 bytes) is read before anything wrote its bytes 0x6-0x7 in this launch (the other bytes were written)\n"), "{out}");
    // Words nothing wrote any byte of keep their text, with no `unwritten`.
    let (_, out, _) = wavedbg(&["check", "--json", "scripts/bugs/reduce_nobarrier.s"]);
    let f = json_lines(&out).remove(0);
    assert_eq!(f["kind"], "uninit-memory", "{f}");
    assert!(f.get("unwritten").is_none(), "{f}");
}

/// A kernel with thousands of findings: the waves of a finding's side that hit it alike
/// are ranges (a wave per entry made lines of thousands of characters), and the text
/// report prints the first 100 findings and how many more there are; `--max-findings N`
/// sets the cap (0: none); JSON prints every finding unless capped, then a
/// `more-findings` object.
#[test]
fn thousands_of_findings_are_capped_and_their_waves_are_ranges() {
    let k = "tests/kernels/sanitizer/many_races.s";
    let (code, out, err) = wavedbg(&["check", k]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.starts_with(&format!("{k}: 2281 findings (2281 errors, 0 warnings)")),
        "{out}"
    );
    assert!(out.contains("\n#100 error: "), "{out}");
    assert!(!out.contains("\n#101 "), "{out}");
    assert!(out.contains("\n... and 2181 more findings not shown (2181 errors, 0 warnings): --max-findings N prints N, 0 every one\n"), "{out}");
    assert!(
        out.contains("\n  also now: waves 1-30, 32-62, 64-66 lane 31\n  also before: waves 2-31, 33-63, 65-67 lane 0\n"),
        "{out}"
    );
    assert!(out.lines().count() < 1000, "{}", out.lines().count());
    let (code, out, _) = wavedbg(&["check", k, "--max-findings", "2"]);
    assert_eq!(code, 1);
    assert!(
        out.contains("\n#2 error: ") && !out.contains("\n#3 "),
        "{out}"
    );
    assert!(
        out.contains("\n... and 2279 more findings not shown"),
        "{out}"
    );
    let (_, out, _) = wavedbg(&["check", k, "--max-findings", "0"]);
    assert!(
        out.contains("\n#2281 error: ") && !out.contains("not shown"),
        "{out}"
    );
    // JSON: every finding unless capped.
    let (_, out, _) = wavedbg(&["check", k, "--json"]);
    let all = json_lines(&out);
    assert_eq!(all.iter().filter(|v| v["kind"] == "race").count(), 2281);
    assert!(all.iter().all(|v| v["kind"] != "more-findings"));
    let (_, out, _) = wavedbg(&["check", k, "--json", "--max-findings", "3"]);
    let capped = json_lines(&out);
    assert_eq!(capped.len(), 4, "{out}");
    assert_eq!(capped[3]["kind"], "more-findings", "{out}");
    assert_eq!(capped[3]["count"], 2278, "{out}");
    assert_eq!(capped[3]["errors"], 2278, "{out}");
    assert_eq!(capped[3]["warnings"], 0, "{out}");
    assert_eq!(capped[3]["allowed"], 0, "{out}");
    // Allowed findings left out are counted as the header counts them.
    let (code, out, _) = wavedbg(&["check", k, "--max-findings", "2", "--allow", "race"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("\n... and 2279 more findings not shown (2279 errors, 0 warnings; 2279 allowed by --allow)"),
        "{out}"
    );
}

/// A race between workgroups whose later read meets the writes of several workgroups names
/// every writer on its side (it named one: wave 0).
#[test]
fn a_global_race_names_every_writer() {
    let k = "tests/kernels/sanitizer/last_block_no_release.s";
    let (code, out, err) = wavedbg(&["check", k]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("  before  wave 0 (workgroup 0, epoch 1) lane 0 write at 0x00a8"),
        "{out}"
    );
    assert!(
        out.contains("\n  also before: waves 2, 4, 6, 8, 10, 12 lane 0\n"),
        "{out}"
    );
    // Merged across seeded runs too.
    let (_, out, _) = wavedbg(&["check", k, "--seeds", "2", "--json"]);
    let f = json_lines(&out).remove(0);
    let writers: Vec<_> = f["also"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter(|w| w["side"] == "other")
                .map(|w| w["wave"].clone())
                .collect()
        })
        .unwrap_or_default();
    assert!(writers.len() >= 6, "{f}");
}

/// A race's later side names every lane of its instruction on the racing address, not
/// only the lane through which the shadow met the earlier access (after it, the word
/// holds that wave's own access); the earlier side names the lane its record kept.
#[test]
fn every_lane_of_the_later_access_on_the_racing_word_is_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let k = dir.path().join("same_word.s");
    std::fs::write(
        &k,
        ".kernel same_word\n.workgroup 64\n.shared 256\n    vmovi v1, 0\n    vlaneid v2\n    st.shared.b32 v2, v1, 0\n    wait.ls 0\n    end\n",
    )
    .expect("write");
    let (code, out, err) = wavedbg(&["check", &k.to_string_lossy()]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("now     wave 1 (workgroup 0, epoch 0) lanes 0-31 write at 0x000c"),
        "{out}"
    );
    assert!(
        out.contains("before  wave 0 (workgroup 0, epoch 0) lane 31 write at 0x000c"),
        "{out}"
    );
    let (_, out, _) = wavedbg(&["check", "--json", &k.to_string_lossy()]);
    let race = json_lines(&out)
        .into_iter()
        .find(|f| f["kind"] == "race")
        .expect("a race");
    assert_eq!(race["at"]["lanes"], "0xffffffff", "{race}");
}
