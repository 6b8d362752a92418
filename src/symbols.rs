//! Writing a kernel's symbol file (`wavedbg elf`, and the one `wavedbg serve` writes): a
//! thin wrapper over `wavedbg_gdb::symbols`.

use std::path::{Path, PathBuf};

use color_eyre::eyre::Result;
use wavedbg_emulator::debug::Engine;
use wavedbg_emulator::files::{self, Input};
use wavedbg_emulator::machine::LaunchOptions;
use wavedbg_emulator::program::Program;
use wavedbg_gdb::symbols::Launch;

/// The source file a program's line table names: the `.s` it was assembled from (as
/// given), or `kernel` itself when that is the source.
fn source_of(program: &Program, kernel: &Path) -> PathBuf {
    match &program.source {
        Some(s) if kernel.extension().is_some_and(|e| e == "wko") => PathBuf::from(s),
        _ => kernel.to_path_buf(),
    }
}

/// The files a symbol file must never be written over: the kernel and the source its line
/// table names.
fn inputs<'a>(kernel: &'a Path, source: &'a Path) -> [Input<'a>; 2] {
    [
        Input {
            path: kernel,
            what: "the kernel",
        },
        Input {
            path: source,
            what: "the kernel's source",
        },
    ]
}

/// Writes the symbol file of `program` (read from `kernel`) to `out`, for a launch with
/// `options` (the grid decides the shared and scratch windows it names).
pub fn write(program: &Program, kernel: &Path, options: LaunchOptions, out: &Path) -> Result<()> {
    let launch = Launch::new(program, options)?;
    let source = source_of(program, kernel);
    write_source(program, &launch, &source, out, &inputs(kernel, &source))
}

/// A symbol file `serve` made for itself (beside the kernel or in the temporary
/// directory): removed when dropped, that is when `serve` returns, or when a signal ends
/// the process ([`SymbolFile::remove_on_signals`]) — but only while the path still holds
/// the file this `serve` wrote: another `serve` of the same kernel may have replaced it
/// since, and its file is not ours to remove.
#[derive(Debug)]
pub struct SymbolFile {
    path: PathBuf,
    /// Whether `serve` made it (an explicit `--symbols` file is the user's and stays).
    made: bool,
    /// The (device, inode) of the file as written.
    id: Option<(u64, u64)>,
}

/// The (device, inode) of the file at `path` now.
fn file_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Removes `path` if it is still the file `id` names.
fn remove_if_ours(path: &Path, id: Option<(u64, u64)>) {
    if id.is_some() && file_id(path) == id {
        let _ = std::fs::remove_file(path);
    }
}

impl SymbolFile {
    /// Where the file is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the file (if `serve` made it) also when SIGINT, SIGTERM or SIGHUP ends the
    /// process: the GDB server does not catch them, so a thread waits for them, removes the
    /// file and ends the process by the same signal, as the default action would have.
    pub fn remove_on_signals(&self) -> Result<()> {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        if !self.made {
            return Ok(());
        }
        let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
        let (path, id) = (self.path.clone(), self.id);
        std::thread::Builder::new()
            .name("wavedbg-symbols".into())
            .spawn(move || {
                if let Some(signal) = signals.forever().next() {
                    remove_if_ours(&path, id);
                    let _ = signal_hook::low_level::emulate_default_handler(signal);
                    // A signal whose default is not to end the process (none of these).
                    std::process::exit(128 + signal);
                }
            })?;
        Ok(())
    }
}

impl Drop for SymbolFile {
    fn drop(&mut self) {
        if self.made {
            remove_if_ours(&self.path, self.id);
        }
    }
}

/// Writes the symbol file for `wavedbg serve` and returns where: `explicit` if given;
/// else KERNEL.elf beside the kernel, unless a file that is not a wavedbg symbol file is
/// there or the directory is not writable; else a file in the temporary directory. The
/// file describes the engine's own launch (its buffers, grid and waves).
pub fn write_for_serve(engine: &Engine, explicit: Option<&Path>) -> Result<SymbolFile> {
    let program = engine.machine().program();
    let launch = Launch::of(engine.machine());
    let kernel = engine.kernel_path().map(PathBuf::from);
    let kernel_file = kernel.as_ref().filter(|k| k.is_file());
    let source = kernel_file
        .map(|k| source_of(program, k))
        .unwrap_or_else(|| PathBuf::from(engine.kernel_path().unwrap_or(&program.name)));
    let kernel_path = kernel.clone().unwrap_or_default();
    let inputs = inputs(&kernel_path, &source);
    if let Some(out) = explicit {
        write_source(program, &launch, &source, out, &inputs)?;
        return Ok(SymbolFile {
            path: out.to_path_buf(),
            made: false,
            id: None,
        });
    }
    if let Some(k) = kernel_file {
        let beside = k.with_extension("elf");
        // Only a symbol file of ours is replaced (read under the objects' limit: a larger
        // file there is not one).
        let free = match files::read_bytes(&beside, files::KERNEL_OBJECT) {
            Ok(bytes) => wavedbg_gdb::symbols::is_symbol_file(&bytes),
            Err(files::ReadError::Io { source, .. }) => {
                source.kind() == std::io::ErrorKind::NotFound
            }
            Err(_) => false,
        };
        if free && write_source(program, &launch, &source, &beside, &inputs).is_ok() {
            return Ok(SymbolFile {
                id: file_id(&beside),
                path: beside,
                made: true,
            });
        }
    }
    let name = Path::new(&program.name)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "kernel".into());
    let out = std::env::temp_dir().join(format!("wavedbg-{}-{name}.elf", std::process::id()));
    write_source(program, &launch, &source, &out, &inputs)?;
    Ok(SymbolFile {
        id: file_id(&out),
        path: out,
        made: true,
    })
}

fn write_source(
    program: &Program,
    launch: &Launch,
    source: &Path,
    out: &Path,
    inputs: &[Input<'_>],
) -> Result<()> {
    let bytes = wavedbg_gdb::symbols::elf_for(program, launch, source)?;
    files::write_file(out, &bytes, inputs)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `serve` that ends removes its symbol file only while the path still holds the
    /// file it wrote: a later `serve` of the same kernel may have replaced it (the race
    /// that made an lldb test find no symbol file).
    #[test]
    fn a_replaced_symbol_file_is_not_removed_by_the_first_serve() {
        let dir = std::env::temp_dir().join(format!("wavedbg-symfile-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join("k.elf");
        let made = |text: &str| {
            let tmp = dir.join(format!(".{text}"));
            std::fs::write(&tmp, text).expect("write");
            std::fs::rename(&tmp, &path).expect("rename");
            SymbolFile {
                id: file_id(&path),
                path: path.clone(),
                made: true,
            }
        };
        let first = made("first");
        let second = made("second");
        drop(first);
        assert_eq!(
            std::fs::read_to_string(&path).ok().as_deref(),
            Some("second")
        );
        drop(second);
        assert!(!path.exists(), "its own file is removed");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
