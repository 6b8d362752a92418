//! docs/commands.md is generated from the command table; this test fails when they
//! disagree. Regenerate with `WAVEDBG_BLESS=1 cargo test --test commands_docs`.

use wavedbg_emulator::debug::command::markdown;

#[test]
fn docs_commands_md_matches_the_command_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/commands.md");
    let generated = markdown();
    if std::env::var_os("WAVEDBG_BLESS").is_some() {
        std::fs::write(path, &generated).expect("write docs/commands.md");
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/commands.md is out of date: run `WAVEDBG_BLESS=1 cargo test --test commands_docs`"
    );
}
