//! docs/isa.md is generated from the table; this test fails when they disagree.
//! Regenerate with `cargo run -- isa --markdown > docs/isa.md`.

use wavedbg_emulator::isa::Isa;

#[test]
fn docs_isa_md_matches_the_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/isa.md");
    let committed = std::fs::read_to_string(path).expect("docs/isa.md exists");
    let generated = Isa::get().markdown();
    assert!(
        committed == generated,
        "docs/isa.md is out of date: run `cargo run -- isa --markdown > docs/isa.md`"
    );
}
