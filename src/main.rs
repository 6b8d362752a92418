//! The `wavedbg` command line.

/// `eprintln!` with the text's control characters written out ([`output::visible`]): a
/// message to stderr names files, sessions and commands that may hold any byte.
macro_rules! eprintln_visible {
    ($($arg:tt)*) => {
        eprintln!("{}", $crate::output::visible(&format!($($arg)*)))
    };
}

mod bench;
mod check;
mod cli;
mod launch;
mod output;
mod repl;
mod replay;
mod report;
mod run;
mod symbols;

use clap::Parser;

fn main() {
    if let Err(e) = report::install_panic_report() {
        eprintln_visible!("{}", report::user_message(&e));
    }
    let cli = cli::Cli::parse();
    let code = match cli::run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln_visible!("{}", report::user_message(&e));
            1
        }
    };
    std::process::exit(code);
}
