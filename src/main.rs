//! The `wavedbg` command line.

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
        eprintln!("{}", report::user_message(&e));
    }
    let cli = cli::Cli::parse();
    let code = match cli::run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("{}", report::user_message(&e));
            1
        }
    };
    std::process::exit(code);
}
