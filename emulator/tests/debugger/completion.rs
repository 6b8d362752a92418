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
