//! Completion of command lines.

use super::fixtures::*;

#[test]
fn completion_after_multibyte_whitespace() {
    let e = bounded_engine(COND);
    let words = Words::of(&e, &[]);
    let (start, c) = words.candidates("print 1 +\u{a0}v1");
    assert_eq!(&"print 1 +\u{a0}v1"[start..], "v1");
    assert!(c.contains(&"v12".to_string()));
    let (start, _) = words.candidates("p\u{a0}");
    assert_eq!(start, "p\u{a0}".len());
    let (start, _) = words.candidates("\u{2003}\u{a0}");
    assert_eq!(start, "\u{2003}\u{a0}".len());
}

/// The kernel's name is a location (`break saxpy`, as gdb's `break main`): it completes
/// where labels do, `until` included, and never inside an expression.
#[test]
fn the_kernel_name_completes_as_a_location() {
    let e = Engine::new(&script("saxpy_src.s"), LaunchOptions::default()).expect("launch");
    let words = Words::of(&e, &[]);
    for line in [
        "break sax",
        "tbreak sax",
        "until sax",
        "advance sax",
        "list sax",
    ] {
        let (_, c) = words.candidates(line);
        assert_eq!(c, ["saxpy"], "{line}");
    }
    let (_, c) = words.candidates("print sax");
    assert!(c.is_empty(), "{c:?}");
}
