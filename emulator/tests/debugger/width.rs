//! `set width`: every renderer fits its output to the width (lane tables and u registers
//! reflow, help wraps at words, the context cuts at spaces, the rest wraps at spaces),
//! never splits a number, and at width 0 (the default) prints what it always printed.

use super::fixtures::*;
use wavedbg_emulator::debug::width::columns;

const WIDTHS: [usize; 5] = [40, 80, 100, 120, 200];

/// A line's output (a stop's `[count N]` may wrap to the next line at a narrow width).
fn run(e: &mut Engine, line: &str) -> String {
    run_raw(e, line)
}

/// One wave of LOOP with its source, stopped at `loop` after one iteration, the context on,
/// output fitted to `width`.
fn stopped_at(width: usize) -> Engine {
    let mut e = loop_with_source();
    run(&mut e, &format!("set width {width}"));
    run(&mut e, "break loop");
    run(&mut e, "continue");
    run(&mut e, "set context on");
    e
}

fn assert_fits(text: &str, width: usize, what: &str) {
    for line in text.lines() {
        assert!(
            columns(line) <= width,
            "`{what}` at width {width}: {} columns:\n{line}\n{text}",
            columns(line)
        );
    }
}

/// The words of a text, marks, brackets and the `[N]` labels of lane rows aside: what
/// reflowing and wrapping keep.
fn words(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| {
            let label = l
                .trim_start()
                .strip_prefix('[')
                .and_then(|r| r.split_once(']'));
            match label {
                Some((n, rest)) if n.trim().parse::<u32>().is_ok() => rest,
                _ => l,
            }
        })
        .flat_map(str::split_whitespace)
        .map(|w| w.trim_matches(|c| matches!(c, '*' | '(' | ')')).to_string())
        .filter(|w| !w.is_empty())
        .collect()
}

/// Lane values a row of a lane table holds (its `[N]` label aside).
fn cells_per_row(table: &str) -> Vec<usize> {
    table
        .lines()
        .filter(|l| l.trim_start().starts_with('['))
        .map(|l| words(l.split_once(']').map_or("", |(_, r)| r)).len())
        .collect()
}

#[test]
fn every_renderer_fits_each_width_and_splits_no_number() {
    let commands = [
        "p v3",
        "p/x v3",
        "p v3 + 1",
        "p/d v3",
        "info registers",
        "info registers v1",
        "help",
        "help set",
        "help info",
        "context",
        "info breakpoints",
        "info waves",
        "stepi",
        "display v3",
        "stepi",
        "x/16xw out",
    ];
    let mut wide = stopped_at(0);
    let unlimited: Vec<String> = commands.iter().map(|c| run(&mut wide, c)).collect();
    for width in WIDTHS {
        let mut e = stopped_at(width);
        for (cmd, all) in commands.iter().zip(&unlimited) {
            let text = run(&mut e, cmd);
            assert_fits(&text, width, cmd);
            // Reflowed and wrapped, the same words: no number is split or lost (the
            // context, which cuts its lines, and the stops that show it aside).
            if !matches!(*cmd, "context" | "stepi") {
                let fitted = words(&text);
                assert_eq!(
                    fitted.concat(),
                    words(all).concat(),
                    "`{cmd}` at width {width}:\n{text}"
                );
                for n in words(all)
                    .iter()
                    .filter(|w| w.starts_with(char::is_numeric))
                {
                    assert!(fitted.contains(n), "`{cmd}` at {width} splits {n}:\n{text}");
                }
            }
        }
    }
}

#[test]
fn lane_tables_put_as_many_lanes_a_row_as_fit() {
    let lanes = |width: usize, cmd: &str| {
        let mut e = stopped_at(width);
        cells_per_row(&run(&mut e, cmd))
    };
    // 8 a row unfitted, as always.
    assert_eq!(lanes(0, "p v3"), [8; 4]);
    assert_eq!(lanes(0, "p v3 + 1"), [8; 4]);
    assert_eq!(lanes(40, "p v3"), [2; 16]);
    assert_eq!(lanes(80, "p v3"), [4; 8]);
    assert_eq!(lanes(120, "p v3"), [7, 7, 7, 7, 4]);
    assert_eq!(lanes(200, "p v3"), [12, 12, 8]);
    // Without change marks a cell is a column narrower.
    assert_eq!(lanes(80, "p v3 + 1"), [5, 5, 5, 5, 5, 5, 2]);
    // The u registers of `info registers`: 8 a row unfitted, 16 columns each.
    let u_rows = |width: usize| {
        let mut e = stopped_at(width);
        run(&mut e, "info registers")
            .lines()
            .filter(|l| l.trim_start().starts_with("u0 "))
            .map(|l| l.matches('=').count())
            .collect::<Vec<_>>()
    };
    assert_eq!(u_rows(0), [8]);
    assert_eq!(u_rows(40), [2]);
    assert_eq!(u_rows(80), [4]);
    assert_eq!(u_rows(200), [12]);
}

#[test]
fn help_wraps_at_words_under_its_summary_column() {
    let mut e = stopped_at(80);
    let text = run(&mut e, "help");
    let long = text
        .lines()
        .position(|l| l.starts_with("  break (b, br)"))
        .expect("break");
    let next = text.lines().nth(long + 1).expect("a continuation");
    assert!(
        next.starts_with(&" ".repeat(25)) && !next.starts_with(&" ".repeat(26)),
        "{next:?}"
    );
    run(&mut e, "set width 0");
    assert!(run(&mut e, "help").lines().any(|l| columns(l) > 120));
}

#[test]
fn the_context_cuts_long_lines_with_a_mark_and_narrows_its_headers() {
    let mut e = stopped_at(40);
    let text = run(&mut e, "context");
    assert_fits(&text, 40, "context");
    assert!(text.contains('…'), "{text}");
    assert!(
        text.lines()
            .any(|l| l == format!("-- end {}", "-".repeat(33))),
        "{text}"
    );
    let mut e = stopped_at(0);
    let text = run(&mut e, "context");
    assert!(
        text.lines()
            .any(|l| l == format!("-- end {}", "-".repeat(71))),
        "{text}"
    );
}

/// A width below the narrowest one output fits to (40) gives the output of 40: asked for
/// with `set width` or given by a terminal that narrow, no number is cut.
#[test]
fn a_width_below_forty_fits_to_forty() {
    let commands = [
        "p v3",
        "p 123456789012345",
        "info registers",
        "context",
        "help",
    ];
    let mut at40 = stopped_at(40);
    let want: Vec<String> = commands.iter().map(|c| run(&mut at40, c)).collect();
    for width in [1, 10, 39] {
        let mut e = stopped_at(width);
        assert_eq!(e.width(), 40);
        for (cmd, want) in commands.iter().zip(&want) {
            assert_eq!(&run(&mut e, cmd), want, "`{cmd}` at width {width}");
        }
        let mut t = loop_with_source();
        t.set_terminal_width(width);
        assert_eq!(t.width(), 40, "a terminal of {width} columns");
    }
}

#[test]
fn the_terminal_width_applies_until_set_width_chooses_one() {
    let mut e = loop_with_source();
    assert_eq!(e.width(), 0, "unlimited by default");
    e.set_terminal_width(80);
    assert_eq!(e.width(), 80);
    e.set_terminal_width(100);
    assert_eq!(e.width(), 100, "a resize applies");
    run(&mut e, "set width 60");
    e.set_terminal_width(100);
    assert_eq!(e.width(), 60, "the user's width wins");
    run(&mut e, "set width unlimited");
    e.set_terminal_width(100);
    assert_eq!(e.width(), 0, "set width 0 is unlimited, as in gdb");
    assert!(run_line(&mut e, "set width").is_err());
    assert!(run_line(&mut e, "set width -1").is_err());
}

/// A lane table's columns line up whatever the values' lengths: every cell is as wide as
/// the longest value (a long f32 or a binary value), at any width and unlimited.
#[test]
fn lane_table_columns_line_up_with_long_values() {
    for width in [0, 80, 200] {
        let mut e = stopped_at(width);
        run(&mut e, "set v1[0] = 0xc0490fdb");
        run(&mut e, "set v1[1] = 0x00003000");
        for fmt in ["/f", "/t", "/d", ""] {
            let out = run(&mut e, &format!("p{fmt} v1"));
            let rows: Vec<&str> = out.lines().filter(|l| l.starts_with("  [")).collect();
            assert!(rows.len() >= 2, "{out}");
            // Every row's cells end at the same columns as the first full row's.
            let ends = |l: &str| -> Vec<usize> {
                let mut v = Vec::new();
                let b = l.as_bytes();
                for i in 1..b.len() {
                    if b[i] == b' ' && b[i - 1] != b' ' {
                        v.push(i);
                    }
                }
                v.push(l.trim_end().len());
                v
            };
            // After the row header (`  [ 8]`, 6 columns).
            let first = ends(&rows[1][6..]);
            // The first row (with the long values and change marks) ends where the next,
            // both full, does.
            assert_eq!(
                rows[0].trim_end_matches(['*', ' ']).len(),
                rows[1].trim_end().len(),
                "p{fmt} at {width}:\n{out}"
            );
            // (The last row may be shorter.)
            for r in &rows[1..] {
                assert!(
                    first.starts_with(&ends(&r[6..])),
                    "p{fmt} at {width}:\n{out}"
                );
            }
            if width > 0 {
                assert_fits(&out, width.max(40), &format!("p{fmt} v1"));
            }
        }
    }
}
