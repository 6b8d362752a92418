//! Writing results to standard output.

use color_eyre::eyre::Result;

/// Writes to stdout; a closed pipe (`wavedbg isa | head`) ends output quietly.
pub fn emit(text: &str) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}
