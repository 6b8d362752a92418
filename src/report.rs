//! How the command line reports an error: a user's mistake (a missing file, an assembler
//! error, a bad session, a refused address) is its message alone on stderr, exit code 1;
//! a report with a location and a backtrace is for bugs, that is panics.

use std::io::IsTerminal;

use color_eyre::eyre::Report;

/// Installs the panic report: colour only when stderr is a terminal, never in pipes and
/// files.
pub fn install_panic_report() -> color_eyre::Result<()> {
    let theme = if std::io::stderr().is_terminal() {
        color_eyre::config::Theme::dark()
    } else {
        color_eyre::config::Theme::new()
    };
    color_eyre::config::HookBuilder::default()
        .theme(theme)
        .install()
}

/// The error and its causes on one line (`cannot read k.s: No such file or directory`),
/// each cause once, I/O errors without Rust's ` (os error N)`.
pub fn user_message(report: &Report) -> String {
    let mut out = String::new();
    for cause in report.chain() {
        let text = match cause.downcast_ref::<std::io::Error>() {
            Some(io) => wavedbg_emulator::io_reason(io),
            None => cause.to_string(),
        };
        // Typed errors often repeat their source in their own message.
        if text.is_empty() || out.contains(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}
