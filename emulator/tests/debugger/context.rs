//! The context (`set context on`): its sections after every stop.

use super::fixtures::*;

#[test]
fn the_context_shows_its_sections_after_every_stop_when_on() {
    let mut e = loop_with_source();
    // Off by default: a stop is its description alone.
    let (text, _) = stop(&mut e, "stepi 6");
    assert!(!text.contains("-- code"), "{text}");
    run(&mut e, "set context on");
    let (text, _) = stop(&mut e, "stepi");
    let heads: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("-- "))
        .map(|l| l.split(" -").next().unwrap())
        .collect();
    // After a stop, the reason is the stop's description right above.
    assert_eq!(
        heads,
        [
            "-- code",
            "-- source: loop.s",
            "-- registers changed since the previous stop",
            "-- lanes: vaddi.u32 v3, v3, 1 reads v3, writes v3",
            "-- exec",
            "-- end"
        ],
        "{text}"
    );
    assert!(text.starts_with("wave 0 (workgroup 0)\n"), "{text}");
    assert!(
        text.lines()
            .nth(3)
            .is_some_and(|l| l.starts_with("-- code --")),
        "the stop, its source line, then the context:\n{text}"
    );
    // `context` alone starts with the reason: the last stop and the selection.
    let now = run(&mut e, "context");
    assert!(
        now.starts_with("-- reason ---")
            && now.contains("---\nwave 0 (workgroup 0) [count 7]\nselected: wave 0 (workgroup 0, ready), lane 0 (active), pc 0x002c <loop+8>\n-- code"),
        "{now}"
    );
    // Code: the PC marked; registers: what the step changed, with the selected lane's
    // values; lanes: the register the next instruction reads and writes, all 32 lanes.
    assert!(text.contains("=>  0x002c  vaddi.u32 v3, v3, 1"), "{text}");
    assert!(
        text.contains("pc    0x0024 <loop> -> 0x002c <loop+8>\n"),
        "{text}"
    );
    assert!(
        text.contains("v1    lanes 0-31; lane 0: 0x00000000 -> 0x00000001\n"),
        "{text}"
    );
    assert!(
        text.contains("v3 (wave 0, EXEC 0xffffffff):\n  [ 0]"),
        "{text}"
    );
    assert!(text.contains(&format!(
        "=>{:>5}\t    vaddi.u32 v3, v3, 1",
        line_of(LOOP, "vaddi.u32 v3, v3, 1")
    )));
    // EXEC on a lane scale, the selected lane pointed at.
    assert!(
        text.contains(
            "exec 0xffffffff: 32 of 32 lanes active (0-31)\n  lane 0       8       16      24    31\n       ################################\n       ^ lane 0\n"
        ),
        "{text}"
    );
    // Sections chosen and ordered; `context` shows it now.
    run(&mut e, "set context-sections exec, regs");
    run(&mut e, "lane 5");
    let now = run(&mut e, "context");
    assert!(now.starts_with("-- exec ---"), "{now}");
    assert!(
        now.contains("            ^ lane 5\n-- registers changed"),
        "{now}"
    );
    assert_eq!(run(&mut e, "ctx"), now);
    // Uniform registers an instruction reads show their value; stores read their data.
    run(&mut e, "set context-sections lanes");
    let (text, _) = stop(&mut e, "stepi");
    assert!(
        text.contains("-- lanes: uaddi u6, u6, -1 reads u6, writes u6 --"),
        "{text}"
    );
    assert!(text.contains("u6 = 0x00000003"), "{text}");
    run(&mut e, "advance store");
    let now = run(&mut e, "context");
    assert!(
        now.contains("-- lanes: st.ubase.b32 v3, u[0:1], v2, 0 reads v3 u0 u1 v2, writes nothing"),
        "{now}"
    );
    // Off again: stops are short.
    run(&mut e, "set context off");
    let (text, _) = stop(&mut e, "stepi");
    assert!(!text.contains("-- "), "{text}");
    // Bad settings.
    fails_with_usage(
        &mut e,
        "set context-sections bogus",
        "unknown context section `bogus`",
    );
    fails_with_usage(&mut e, "set context-sections ,", "needs sections");
    fails_with_usage(&mut e, "set context maybe", "set context [on|off]");
    fails_with_usage(&mut e, "context now", "takes no argument");
    // The settings print back as they parse.
    for line in [
        "set context on",
        "set context-sections code,exec",
        "list",
        "list loop",
        "context",
    ] {
        let c = command::parse(line).unwrap().unwrap();
        assert_eq!(c.to_string(), line);
    }
    let c = command::parse("set context-sections all").unwrap().unwrap();
    assert_eq!(
        c.to_string(),
        "set context-sections reason,code,source,regs,lanes,exec"
    );
}
