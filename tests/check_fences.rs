//! `wavedbg check` on the release/acquire patterns of tests/kernels/memory_model/: the
//! fenced kernels are clean under seeded schedules, and each unfenced one reports a race
//! whose text and JSON name the missing half and its atomic's line.

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

fn kernel(name: &str) -> String {
    format!("tests/kernels/memory_model/{name}.s")
}

#[test]
fn fenced_patterns_are_clean_under_seeds() {
    for name in ["last_block", "message_pass"] {
        let k = kernel(name);
        let (code, out, err) = wavedbg(&["check", &k, "--seeds", "8", "--quantum", "1"]);
        assert_eq!(code, 0, "{name}: {out}{err}");
        assert!(out.contains(": 0 findings"), "{name}: {out}");
    }
}

#[test]
fn unfenced_patterns_name_the_missing_half_in_text() {
    for (name, text) in [
        (
            "last_block_ticket_first",
            "between workgroups 0 and 3: no release before the atomic at line 24",
        ),
        (
            "last_block_no_wait",
            "between workgroups 0 and 3: no release before the atomic at line 26",
        ),
        (
            "last_block_no_inv",
            "between workgroups 0 and 3: no acquire after the atomic at line 26",
        ),
        (
            "message_pass_no_wait",
            "between workgroups 0 and 1: no release before the atomic at line 26",
        ),
        (
            "message_pass_no_inv",
            "between workgroups 0 and 1: no acquire after the atomic at line 34",
        ),
    ] {
        let k = kernel(name);
        let (code, out, err) = wavedbg(&["check", &k, "--seeds", "4"]);
        assert_eq!(code, 1, "{name}: {out}{err}");
        assert!(out.contains(": 1 finding (1 error"), "{name}: {out}");
        assert!(out.contains(text), "{name}: {out}");
        // The atomic the fence belongs with has its own line in the report.
        let side = if text.contains("release") {
            "  release wave"
        } else {
            "  acquire wave"
        };
        assert!(out.contains(side), "{name}: {out}");
    }
}

/// A plain access racing another workgroup's atomic: no release of the atomic's wave can
/// order its own atomic, and the later wave's atomics came before it, so the report names
/// no fence (it named the earlier atomic as a missing release, and an atomic that ran
/// before it as a missing acquire).
#[test]
fn a_plain_access_racing_an_atomic_names_no_fence() {
    for name in ["atomic_then_plain", "counter_reset"] {
        let k = kernel(name);
        let (code, out, err) = wavedbg(&["check", &k]);
        assert_eq!(code, 1, "{name}: {out}{err}");
        assert!(out.contains(": 1 finding (1 error"), "{name}: {out}");
        assert!(
            out.contains(": no atomic synchronises them (release, then acquire)"),
            "{name}: {out}"
        );
        assert!(!out.contains("  release wave"), "{name}: {out}");
        assert!(!out.contains("  acquire wave"), "{name}: {out}");
        assert!(out.contains(" atomic at "), "{name}: {out}");
    }
}

/// A consumer that reads the flag once instead of spinning on it: its atomic read the flag
/// before the producer's release, so its fence acquires nothing of it and its loads race
/// the producer's stores. The fence used to take the flag's clock as it was at the fence
/// (after the release) and the race went unreported under every seed.
#[test]
fn an_atomic_that_read_before_the_release_acquires_nothing() {
    let k = kernel("message_pass_no_spin");
    let (code, out, err) = wavedbg(&["check", &k, "--seeds", "4"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains(": 1 finding (1 error"), "{out}");
    assert!(
        out.contains("between workgroups 0 and 1: the atomic at line 37 read its address before the atomic at line 32 released the access (nothing waited for the release) (5 times)\n"),
        "{out}"
    );
    assert!(
        out.contains("  release wave 0 (workgroup 0) atomic at "),
        "{out}"
    );
    assert!(
        out.contains("  acquire wave 1 (workgroup 1) atomic at "),
        "{out}"
    );
    let (code, out, err) = wavedbg(&["check", &k, "--json"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains(r#""missing":"read-before-release""#), "{out}");
}

/// The same without the consumer's fence says that no acquire followed either; and in a
/// chain, the release named is the atomic that changed the address the reader read (the
/// middle workgroup's raise of x), not the first workgroup's raise of y, which the
/// reader's atomic came after.
#[test]
fn a_read_before_the_release_names_the_release_on_that_address() {
    let (code, out, err) = wavedbg(&["check", &kernel("message_pass_no_spin_no_inv")]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains(": the atomic at line 37 read its address before the atomic at line 32 released the access (nothing waited for the release), and no acquire followed it\n"),
        "{out}"
    );
    let (code, out, err) = wavedbg(&["check", &kernel("message_chain_no_spin")]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("between workgroups 0 and 2: the atomic at line 32 read its address before the atomic at line 68 released the access (nothing waited for the release)\n"),
        "{out}"
    );
    assert!(
        out.contains("  release wave 1 (workgroup 1) atomic at "),
        "{out}"
    );
}

/// The atomic a missing fence names is shown with the wave that executed it: in a
/// two-wave last-block reduction, wave 1's unretired stores are released (or not) by
/// wave 0's ticket, which the barrier passes them to. The report named wave 1.
#[test]
fn the_missing_fence_names_the_wave_that_executed_its_atomic() {
    let k = kernel("last_block_two_waves_one_release");
    let (code, out, err) = wavedbg(&["check", &k]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("no release before the atomic at line 36"),
        "{out}"
    );
    assert!(
        out.contains("  before  wave 1 (workgroup 0, epoch 0)"),
        "{out}"
    );
    assert!(
        out.contains("  release wave 0 (workgroup 0) atomic at "),
        "{out}"
    );
    let (code, out, err) = wavedbg(&["check", &k, "--json"]);
    assert_eq!(code, 1, "{out}{err}");
    let first = out.lines().next().expect("a finding");
    let v: serde_json::Value = serde_json::from_str(first).expect("json");
    let release = &v["fence"]["release"];
    assert_eq!(release["wave"], 0, "{out}");
    assert_eq!(release["workgroup"], 0, "{out}");
    assert_eq!(release["line"], 36, "{out}");
    assert_eq!(v["other"]["wave"], 1, "{out}");
}

/// Past the clocks' bound of waves, a race the fences may order is reported as such, not
/// blamed on a missing fence: the fenced last-block reduction at 32,769 workgroups of 2
/// waves (its last clock would hold 65,538).
#[test]
fn a_race_past_the_clock_bound_says_the_report_may_be_false() {
    let k = kernel("last_block_past_clock_bound");
    let (code, out, err) = wavedbg(&["check", &k]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains(": the sanitizer's release/acquire clocks passed their bound of 65536 waves, so the fences that would order them may not have been seen (this report may be false; docs/sanitizer.md)"),
        "{out}"
    );
    assert!(!out.contains("no release before"), "{out}");
    let (code, out, err) = wavedbg(&["check", &k, "--json"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains(r#""missing":"bound""#), "{out}");
}

/// Past 2,048 release generations of the earlier wave (records keep them modulo 2^11),
/// a race its release may cover says the report may be false; it blamed a missing
/// release on a correctly fenced producer.
#[test]
fn a_race_past_the_generation_bound_says_the_report_may_be_false() {
    let k = kernel("message_pass_past_generation_bound");
    let (code, out, err) = wavedbg(&["check", &k]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains(": the earlier wave passed 2048 release generations, which the sanitizer's records tell apart only modulo that, so the release that orders them may not have been seen (this report may be false; docs/sanitizer.md)"),
        "{out}"
    );
    assert!(!out.contains("no release before"), "{out}");
    let (code, out, err) = wavedbg(&["check", &k, "--json"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains(r#""missing":"generation-bound""#), "{out}");
}

/// The line that explains a schedule-dependent result quotes its finding as the finding
/// says it, atomics by their source line (it named them by address).
#[test]
fn an_explained_difference_names_atomics_by_line() {
    let k = kernel("counter_reset_atomic");
    let (code, out, err) = wavedbg(&["check", &k, "--seeds", "10"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("  explained by #1: data race on global:0x100020000 (4 bytes) between workgroups 0 and 3: no acquire after the atomic at line 16\n"),
        "{out}"
    );
}

#[test]
fn json_names_the_missing_fence_and_its_atomic() {
    let k = kernel("last_block_no_inv");
    let (code, out, _) = wavedbg(&["check", &k, "--json"]);
    assert_eq!(code, 1, "{out}");
    let f: serde_json::Value = out
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON line"))
        .find(|v| v["kind"] == "race")
        .unwrap_or_else(|| panic!("no race: {out}"));
    assert_eq!(f["fence"]["missing"], "acquire", "{f}");
    assert_eq!(f["fence"]["release"], serde_json::Value::Null, "{f}");
    let acquire = &f["fence"]["acquire"];
    assert_eq!(acquire["line"], 26, "{f}");
    assert_eq!(acquire["wave"], f["at"]["wave"], "{f}");
    assert_eq!(acquire["workgroup"], 3, "{f}");
    assert!(
        acquire["instruction"]
            .as_str()
            .is_some_and(|s| s.starts_with("atom.ubase.add.u32.rtn")),
        "{f}"
    );
    assert!(
        f["message"]
            .as_str()
            .is_some_and(|m| m.ends_with("no acquire after the atomic at line 26")),
        "{f}"
    );

    let k = kernel("message_pass_no_wait");
    let (_, out, _) = wavedbg(&["check", &k, "--json"]);
    let f: serde_json::Value = out
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON line"))
        .find(|v| v["kind"] == "race")
        .unwrap_or_else(|| panic!("no race: {out}"));
    assert_eq!(f["fence"]["missing"], "release", "{f}");
    assert_eq!(f["fence"]["acquire"], serde_json::Value::Null, "{f}");
    assert_eq!(f["fence"]["release"]["line"], 26, "{f}");
    assert_eq!(f["fence"]["release"]["workgroup"], 0, "{f}");
}

#[test]
fn a_store_not_retired_before_a_barrier_is_a_race_across_it() {
    let k = kernel("barrier_exchange");
    let (code, out, err) = wavedbg(&["check", &k, "--seeds", "8", "--quantum", "1"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(": 0 findings"), "{out}");

    let k = kernel("barrier_exchange_no_wait");
    let (code, out, err) = wavedbg(&["check", &k, "--seeds", "4"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains(": 1 finding (1 error"), "{out}");
    assert!(
        out.contains(
            "in workgroup 0, across the barrier at line 19 (epochs 0 and 1): the earlier access \
             was not retired before its wave reached the barrier (no wait.ls retired it first)"
        ),
        "{out}"
    );
    assert!(out.contains("write at 0x0020 <publish>"), "{out}");
    assert!(out.contains("read at 0x0040 <read>"), "{out}");

    let (code, out, err) = wavedbg(&["check", &k, "--json"]);
    assert_eq!(code, 1, "{err}");
    let v: serde_json::Value = out
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON line"))
        .find(|v| v["kind"] == "race")
        .unwrap_or_else(|| panic!("no race: {out}"));
    let fence = &v["fence"];
    assert_eq!(fence["missing"], "not-retired", "{v}");
    assert_eq!(fence["counter"], "ls", "{v}");
    assert_eq!(fence["barrier"]["line"], 19, "{v}");
    assert_eq!(fence["barrier"]["instruction"], "barrier", "{v}");
    assert_eq!(v["other"]["epoch"], 0, "{v}");
    assert_eq!(v["at"]["epoch"], 1, "{v}");
}

#[test]
fn a_store_the_release_does_not_cover_races_across_the_barrier() {
    // Two stores of one instruction to the same bytes, outstanding at the loop's
    // barriers; `wait.vst 1` retires only the first before the release.
    let k = kernel("late_store_released_once");
    let (code, out, err) = wavedbg(&["check", &k, "--seeds", "4"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains(": 1 finding (1 error"), "{out}");
    assert!(
        out.contains("in workgroup 0, across the barrier at line 27 (epochs 1 and 2)"),
        "{out}"
    );
    assert!(out.contains("<storeB>"), "{out}");
    assert!(out.contains("<storeA>"), "{out}");
}

/// The first race of `check --json` on `k`.
fn json_race(k: &str) -> serde_json::Value {
    let (code, out, err) = wavedbg(&["check", k, "--json"]);
    assert_eq!(code, 1, "{k}: {out}{err}");
    out.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON line"))
        .find(|v| v["kind"] == "race")
        .unwrap_or_else(|| panic!("{k}: no race: {out}"))
}

/// A plain read against an atomic is no race while nothing claims to order them; but an
/// atomic or a read still outstanding when its wave reached a barrier, against the other
/// side's access after that barrier, is one: the program relies on the barrier, which
/// orders only retired accesses. Both directions, shared and global memory (the
/// histogram merge with no wait before its barrier was reported clean).
#[test]
fn an_atomic_or_read_not_retired_before_a_barrier_races_across_it() {
    for name in ["histogram_merge", "counts_global", "counts_shared"] {
        let k = kernel(name);
        let (code, out, err) = wavedbg(&["check", &k, "--seeds", "8", "--quantum", "1"]);
        assert_eq!(code, 0, "{name}: {out}{err}");
        assert!(out.contains(": 0 findings"), "{name}: {out}");
    }
    for (name, findings, races) in [
        (
            "histogram_merge_no_wait",
            1,
            &[(
                "data race on shared:0x0 (4 bytes) in workgroup 0, across the barrier at line 39 \
                 (epochs 1 and 2): the earlier access was not retired before its wave reached \
                 the barrier (no wait.ls retired it first)",
                "read at 0x007c <read>",
                "atomic at 0x006c <add>",
            )][..],
        ),
        (
            "counts_global_no_wait",
            2,
            &[
                (
                    "in workgroup 0, across the barrier at line 23 (epochs 0 and 1): the earlier \
                     access was not retired before its wave reached the barrier (no wait.vst \
                     retired it first)",
                    "read at 0x0028 <read>",
                    "atomic at 0x0018 <add>",
                ),
                (
                    "in workgroup 0, across the barrier at line 30 (epochs 1 and 2): the earlier \
                     access was not retired before its wave reached the barrier (no wait.vm \
                     retired it first)",
                    "atomic at 0x0038 <again>",
                    "read at 0x0028 <read>",
                ),
            ][..],
        ),
        (
            "counts_shared_no_wait",
            1,
            &[(
                "data race on shared:0x0 (4 bytes) in workgroup 0, across the barrier at line 27 \
                 (epochs 1 and 2): the earlier access was not retired before its wave reached \
                 the barrier (no wait.ls retired it first)",
                "atomic at 0x0040 <add>",
                "read at 0x0030 <read>",
            )][..],
        ),
    ] {
        let k = kernel(name);
        let (code, out, err) = wavedbg(&["check", &k, "--seeds", "4"]);
        assert_eq!(code, 1, "{name}: {out}{err}");
        let plural = if findings == 1 { "" } else { "s" };
        let head = format!(": {findings} finding{plural} ({findings} error{plural}, 0 warnings)");
        assert!(out.contains(&head), "{name}: {out}");
        for (text, now, before) in races {
            // The headline, then the later access, then the earlier one.
            let at = out
                .find(text)
                .unwrap_or_else(|| panic!("{name}: no {text:?} in {out}"));
            let rest = &out[at..];
            let (n, b) = (rest.find(now), rest.find(before));
            assert!(
                n.is_some_and(|n| b.is_some_and(|b| n < b)),
                "{name}: {now} then {before}: {out}"
            );
        }
    }
    let v = json_race(&kernel("histogram_merge_no_wait"));
    assert_eq!(v["fence"]["missing"], "not-retired", "{v}");
    assert_eq!(v["fence"]["counter"], "ls", "{v}");
    assert_eq!(v["fence"]["barrier"]["line"], 39, "{v}");
    assert_eq!(v["other"]["access"], "atomic", "{v}");
    assert_eq!(v["at"]["access"], "read", "{v}");
}

/// An acquire fence counts for a later access once it is retired, or for a load or
/// returning atomic behind it on its in-order `vm` counter: a uniform load (`sm`) right
/// after an unretired `cache.inv.l1` is not acquired (it was taken as acquired), nor is a
/// non-returning atomic (`vst`), and the race names the unretired fence; a returning
/// atomic is (it was reported as a missing acquire).
#[test]
fn a_uniform_load_after_an_unretired_fence_is_not_acquired() {
    // A returning atomic right after the fence is behind it on `vm`, as a load is.
    for name in ["message_pass_uniform", "message_pass_atomic_behind_fence"] {
        let k = kernel(name);
        let (code, out, err) = wavedbg(&["check", &k, "--seeds", "8", "--quantum", "1"]);
        assert_eq!(code, 0, "{name}: {out}{err}");
        assert!(out.contains(": 0 findings"), "{name}: {out}");
    }
    // A non-returning atomic (`vst`) is not.
    let k = kernel("message_pass_atomic_no_wait");
    let (code, out, err) = wavedbg(&["check", &k, "--seeds", "4"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains(": 1 finding (1 error"), "{out}");
    assert!(
        out.contains("the acquire fence at line 40 was not retired before this access"),
        "{out}"
    );
    assert!(out.contains("atomic at 0x0078 <update+8>"), "{out}");

    let k = kernel("message_pass_uniform_no_wait");
    let (code, out, err) = wavedbg(&["check", &k, "--seeds", "4"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains(": 1 finding (1 error"), "{out}");
    assert!(
        out.contains(
            "between workgroups 0 and 1: the acquire fence at line 40 was not retired before \
             this access (no wait.vm retired it first"
        ),
        "{out}"
    );
    assert!(out.contains("read at 0x0070 <read>: uld.b32"), "{out}");
    assert!(
        out.contains("  acquire wave 1 (workgroup 1) at 0x006c <acquire>: cache.inv.l1"),
        "{out}"
    );

    let v = json_race(&k);
    assert_eq!(v["fence"]["missing"], "acquire-not-retired", "{v}");
    assert_eq!(v["fence"]["release"], serde_json::Value::Null, "{v}");
    let fence = &v["fence"]["acquire"];
    assert_eq!(fence["line"], 40, "{v}");
    assert_eq!(fence["wave"], 1, "{v}");
    assert_eq!(fence["instruction"], "cache.inv.l1", "{v}");
}

/// An acquire fence one wave had not retired when it reached a barrier passes nothing on
/// to the other waves: the race names that fence and the barrier (it said no atomic
/// synchronised them). Retired, it is passed on; and another wave's own fence after the
/// barrier still acquires the atomic the first wave read.
#[test]
fn a_fence_not_retired_before_a_barrier_is_named_with_the_barrier() {
    for name in ["message_pass_workgroup", "message_pass_workgroup_own_fence"] {
        let k = kernel(name);
        let (code, out, err) = wavedbg(&["check", &k, "--seeds", "8", "--quantum", "1"]);
        assert_eq!(code, 0, "{name}: {out}{err}");
        assert!(out.contains(": 0 findings"), "{name}: {out}");
    }
    let k = kernel("message_pass_workgroup_no_wait");
    let (code, out, err) = wavedbg(&["check", &k, "--seeds", "4"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains(": 1 finding (1 error"), "{out}");
    assert!(
        out.contains(
            "between workgroups 0 and 1: the acquire fence at line 47 (wave 2) was not retired \
             before its wave reached the barrier at line 50 (no wait.vm retired it first), and \
             a barrier passes on only retired fences"
        ),
        "{out}"
    );
    assert!(
        out.contains("  acquire wave 2 (workgroup 1) at 0x0098 <acquire>: cache.inv.l1"),
        "{out}"
    );

    let v = json_race(&k);
    assert_eq!(v["fence"]["missing"], "acquire-not-retired", "{v}");
    assert_eq!(v["fence"]["acquire"]["line"], 47, "{v}");
    assert_eq!(v["fence"]["acquire"]["wave"], 2, "{v}");
    assert_eq!(v["fence"]["barrier"]["line"], 50, "{v}");
    assert_eq!(v["at"]["wave"], 3, "{v}");
}
