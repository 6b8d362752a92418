//! Reading and writing the files wavedbg is given (docs/files.md): every whole-file input
//! is read under a size limit, and every output is written so that it never destroys what
//! its path points at.
//!
//! - [`read_bytes`], [`read_text`]: a regular file larger than its [`Limit`] is refused
//!   before it is read; a stream (a FIFO, `/dev/zero`, a `/proc` file) is read up to the
//!   limit and then refused.
//! - [`write_file`]: follows symlinks to the file they name and replaces that one
//!   atomically (a temporary file beside it, then a rename), keeping its mode and owner;
//!   writes a character device in place (`/dev/null`, a terminal); refuses anything else
//!   that is not a regular file (a FIFO, a directory, a block device, a socket) and the
//!   command's own inputs; removes its temporary file on every error, and the temporaries
//!   of killed runs it finds for the same target.

use std::fs::{File, Metadata, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The most bytes an input of one kind may hold, and what that kind is called in errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    /// Size limit in bytes.
    pub bytes: u64,
    /// The kind of input, plural, as errors name it ("kernel sources").
    pub what: &'static str,
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const MIB: u64 = 1 << 20;
        const KIB: u64 = 1 << 10;
        match self.bytes {
            b if b >= MIB && b % MIB == 0 => write!(f, "{} MiB", b / MIB),
            b if b >= KIB && b % KIB == 0 => write!(f, "{} KiB", b / KIB),
            b => write!(f, "{b} bytes"),
        }
    }
}

/// Kernel sources (`.s`).
pub const KERNEL_SOURCE: Limit = Limit {
    bytes: 64 << 20,
    what: "kernel sources",
};
/// Kernel objects (`.wko`).
pub const KERNEL_OBJECT: Limit = Limit {
    bytes: 64 << 20,
    what: "kernel objects",
};
/// Command scripts (`replay FILE`).
pub const SCRIPT: Limit = Limit {
    bytes: 16 << 20,
    what: "command scripts",
};
/// Sessions (`--session`, `load`, `replay S.ron`).
pub const SESSION: Limit = Limit {
    bytes: 16 << 20,
    what: "sessions",
};
/// Golden transcripts (`replay --check`).
pub const GOLDEN: Limit = Limit {
    bytes: 16 << 20,
    what: "golden transcripts",
};
/// The command-history file (its entries are bounded too, see [`HISTORY_LINE`]).
pub const HISTORY: Limit = Limit {
    bytes: 16 << 20,
    what: "history files",
};
/// The longest line the command history saves; a longer one is run but not kept.
pub const HISTORY_LINE: usize = 4 << 10;

/// Whether the command history keeps `line` (trimmed): not empty, at most
/// [`HISTORY_LINE`] bytes, and holding no control character but tab. A pasted BEL, an
/// escape sequence or a carriage return would ring, move the cursor or rewrite the screen
/// each time the history is shown or recalled, and a NUL or CR can break the file for
/// other readers; such a line is run (and fails or not as typed) but not kept. The REPL
/// and the TUI's command line both ask this.
pub fn history_keeps(line: &str) -> bool {
    !line.is_empty()
        && line.len() <= HISTORY_LINE
        && !line.chars().any(|c| c.is_control() && c != '\t')
}

/// Why an input could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The OS refused (missing file, no permission, a directory, not UTF-8 text).
    #[error("cannot read {path}: {}", crate::io_reason(source))]
    Io {
        /// The path as given.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The input is larger than its limit (a stream: it gave more than the limit).
    #[error("{path}: larger than the {limit} limit for {}", limit.what)]
    TooLarge {
        /// The path as given.
        path: String,
        /// The limit it exceeds.
        limit: Limit,
    },
}

/// Reads a whole file of at most `limit` bytes.
pub fn read_bytes(path: &Path, limit: Limit) -> Result<Vec<u8>, ReadError> {
    let name = || path.display().to_string();
    let io = |source| ReadError::Io {
        path: name(),
        source,
    };
    let too_large = || ReadError::TooLarge {
        path: name(),
        limit,
    };
    let file = File::open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if meta.is_dir() {
        return Err(io(std::io::Error::from_raw_os_error(21)));
    }
    // A regular file says its size: refuse it before reading a byte. Anything else (a
    // FIFO, a device, a /proc file that says 0) is read one byte past the limit at most.
    if meta.is_file() && meta.len() > limit.bytes {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    file.take(limit.bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > limit.bytes {
        return Err(too_large());
    }
    Ok(bytes)
}

/// Reads a whole UTF-8 text file of at most `limit` bytes. A UTF-8 byte order mark at its
/// start (editors on Windows write one) is dropped: it is no part of the text, and every
/// text input (a session, a command script, a kernel's source, a golden transcript) would
/// otherwise refuse or misread its first line.
pub fn read_text(path: &Path, limit: Limit) -> Result<String, ReadError> {
    let mut bytes = read_bytes(path, limit)?;
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    String::from_utf8(bytes).map_err(|_| ReadError::Io {
        path: path.display().to_string(),
        source: std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "not UTF-8 text".to_string(),
        ),
    })
}

/// A regular file's text read again after it was loaded (a kernel's source, to quote its
/// lines): `None` for anything else (a FIFO read once is gone, and reading it again would
/// wait for a writer), or when it cannot be read within `limit`.
pub fn reread_text(path: &Path, limit: Limit) -> Option<String> {
    let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
    regular.then(|| read_text(path, limit).ok()).flatten()
}

/// A file a command reads, which its outputs must not overwrite.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    /// The path as given.
    pub path: &'a Path,
    /// What it is to the command, for the error ("the kernel source").
    pub what: &'a str,
}

/// The higher-level source files a kernel's `.file`s name (`paths`, as
/// [`crate::program::SourceInfo::paths_beside`] gives them) as inputs no output may
/// overwrite, as the kernel itself.
pub fn source_inputs(paths: &[PathBuf]) -> impl Iterator<Item = Input<'_>> {
    paths.iter().map(|path| Input {
        path,
        what: "a source file of the kernel",
    })
}

/// Why an output was not written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The OS refused (no permission, no space, a missing folder).
    #[error("cannot write {path}: {}", crate::io_reason(source))]
    Io {
        /// The path as given.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The path names something that is neither a regular file nor a character device.
    #[error("cannot write {path}: it is a {kind}, not a regular file")]
    NotAFile {
        /// The path as given.
        path: String,
        /// What it is: "FIFO", "directory", "block device", "socket".
        kind: &'static str,
    },
    /// The path names one of the command's own inputs.
    #[error("refusing to write {path}: it is {what}, which this command reads")]
    OwnInput {
        /// The path as given.
        path: String,
        /// What the input is ("the kernel source").
        what: String,
    },
}

/// What a path names once its symlinks are followed.
enum Target {
    /// Nothing yet: a new file is created there.
    New(PathBuf),
    /// A regular file, replaced atomically; its metadata gives the mode and owner to keep.
    File(PathBuf, Metadata),
    /// A character device, written in place.
    Device(PathBuf),
}

/// The file `path` finally names: symlinks followed, each relative one from its own
/// folder, so a dangling link names the file it would create.
fn follow(path: &Path) -> std::io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    // As the kernel's own limit on nested links (ELOOP beyond it).
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&p)?;
                p = match p.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            Ok(_) => return Ok(p),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(p),
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::from_raw_os_error(40))
}

/// The name of a non-regular, non-device file type, for [`WriteError::NotAFile`].
fn kind_of(m: &Metadata) -> Option<&'static str> {
    let t = m.file_type();
    if t.is_file() || t.is_char_device() {
        None
    } else if t.is_dir() {
        Some("directory")
    } else if t.is_fifo() {
        Some("FIFO")
    } else if t.is_block_device() {
        Some("block device")
    } else if t.is_socket() {
        Some("socket")
    } else {
        Some("special file")
    }
}

/// Classifies where `path` leads, refusing what may not be written and the `inputs`.
fn target(path: &Path, inputs: &[Input<'_>]) -> Result<Target, WriteError> {
    let name = path.display().to_string();
    let io = |source| WriteError::Io {
        path: name.clone(),
        source,
    };
    let real = follow(path).map_err(io)?;
    let meta = match std::fs::metadata(&real) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io(e)),
    };
    if let Some(m) = &meta {
        for input in inputs {
            if std::fs::metadata(input.path).is_ok_and(|i| i.dev() == m.dev() && i.ino() == m.ino())
            {
                return Err(WriteError::OwnInput {
                    path: name,
                    what: input.what.to_string(),
                });
            }
        }
        if let Some(kind) = kind_of(m) {
            return Err(WriteError::NotAFile { path: name, kind });
        }
    }
    Ok(match meta {
        None => Target::New(real),
        Some(m) if m.file_type().is_char_device() => Target::Device(real),
        Some(m) => Target::File(real, m),
    })
}

/// Checks, without writing, that [`write_file`] may write `path`: the same refusals (a
/// FIFO, a directory, a block device, a socket, one of `inputs`).
pub fn check_output(path: &Path, inputs: &[Input<'_>]) -> Result<(), WriteError> {
    target(path, inputs).map(|_| ())
}

/// Writes `bytes` to `path` (see the module's rules): a new or regular file through a
/// temporary file beside the file the path finally names and a rename, so an interrupted
/// write never leaves a broken file, keeping a replaced file's mode and owner; a character
/// device in place. `inputs` are the command's own inputs, which are refused.
pub fn write_file(path: &Path, bytes: &[u8], inputs: &[Input<'_>]) -> Result<(), WriteError> {
    let io = |source| WriteError::Io {
        path: path.display().to_string(),
        source,
    };
    match target(path, inputs)? {
        Target::Device(real) => {
            // Never created, truncated or replaced: the device gets the bytes.
            let mut f = OpenOptions::new().write(true).open(real).map_err(io)?;
            f.write_all(bytes).and_then(|()| f.flush()).map_err(io)
        }
        Target::New(real) => replace(&real, bytes, None).map_err(io),
        Target::File(real, meta) => replace(&real, bytes, Some(&meta)).map_err(io),
    }
}

/// The temporary file's name prefix for `name`: `.NAME.tmp`, followed by the writer's PID.
fn temp_prefix(name: &str) -> String {
    format!(".{name}.tmp")
}

/// Removes the temporaries `.NAME.tmpPID` in `dir` left by runs that were killed (no
/// process `PID` is alive). Only regular files are removed; without `/proc` nothing is.
fn remove_stale(dir: &Path, name: &str) {
    let proc_ok = Path::new("/proc/self").exists();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let prefix = temp_prefix(name);
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(pid) = file.to_str().and_then(|f| f.strip_prefix(&prefix)) else {
            continue;
        };
        let Ok(pid) = pid.parse::<u32>() else {
            continue;
        };
        let alive = !proc_ok || Path::new("/proc").join(pid.to_string()).exists();
        if !alive && std::fs::symlink_metadata(entry.path()).is_ok_and(|m| m.file_type().is_file())
        {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Writes `bytes` to a temporary file beside `real` and renames it over `real`; `old`,
/// the file replaced, gives the mode and owner to keep.
fn replace(real: &Path, bytes: &[u8], old: Option<&Metadata>) -> std::io::Result<()> {
    let dir = real
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = real
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    remove_stale(dir, &name);
    let tmp = dir.join(format!("{}{}", temp_prefix(&name), std::process::id()));
    // A temporary of this process is one it left after an error it could not clean up;
    // anything else there (a link, a FIFO) makes `create_new` fail rather than follow it.
    if std::fs::symlink_metadata(&tmp).is_ok_and(|m| m.file_type().is_file()) {
        std::fs::remove_file(&tmp)?;
    }
    // Private until written; a new file then gets the umask's mode, a replaced one its own.
    let mode = if old.is_some() { 0o600 } else { 0o666 };
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(&tmp)?;
    let result = (|| {
        f.write_all(bytes)?;
        if let Some(old) = old {
            let mine = f.metadata()?;
            if (mine.uid(), mine.gid()) != (old.uid(), old.gid()) {
                std::os::unix::fs::fchown(&f, Some(old.uid()), Some(old.gid()))?;
            }
            // After the chown, which clears set-id bits.
            f.set_permissions(std::fs::Permissions::from_mode(old.mode() & 0o7777))?;
        }
        f.sync_all()?;
        std::fs::rename(&tmp, real)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Whether `path` may be used as a file that is appended to in place (the command
/// history): a regular file or a new path, symlinks followed, and not larger than `limit`.
/// Anything else is refused, so that a line editor that sets the file's mode or reads it
/// whole never does so to a device or a stream.
pub fn check_appendable(path: &Path, limit: Limit) -> Result<(), String> {
    let name = path.display();
    let real = follow(path).map_err(|e| format!("cannot use {name}: {}", crate::io_reason(&e)))?;
    match std::fs::metadata(&real) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("cannot use {name}: {}", crate::io_reason(&e))),
        Ok(m) if !m.is_file() => Err(format!(
            "cannot use {name}: it is a {}, not a regular file",
            kind_of(&m).unwrap_or("character device")
        )),
        Ok(m) if m.len() > limit.bytes => Err(format!(
            "{name}: larger than the {limit} limit for {}",
            limit.what
        )),
        Ok(_) => Ok(()),
    }
}
