//! The `wavedbg` command line.

mod cli;
mod launch;
mod repl;
mod replay;
mod run;

use clap::Parser;

fn main() -> color_eyre::Result<()> {
    color_eyre::install()?;
    let cli = cli::Cli::parse();
    let code = cli::run(cli)?;
    std::process::exit(code);
}
