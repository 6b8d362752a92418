//! Opening a kernel under the debugger, the one way every front end does it: the
//! built-in demo, a `.s` or `.wko` file, or a saved session with its kernel.

use std::path::{Path, PathBuf};

use super::session::{resolve_beside, Session, SessionError};
use super::Engine;
use crate::asm::{AsmErrors, AssembleOptions};
use crate::machine::{LaunchError, LaunchOptions};
use crate::program::{ObjectError, Program};

/// Where the kernel to debug comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KernelSource {
    /// The built-in demo (a histogram with shared-memory atomics and barriers), shown
    /// as [`crate::demo::NAME`].
    Demo,
    /// A kernel file: a `.wko` object, anything else assembler source.
    File(PathBuf),
    /// A saved session: its kernel is `kernel` when given, else the one the session
    /// names (beside the session file, or the demo); the session is applied after the
    /// launch (its launch settings, points, displays and selection).
    Session {
        /// The session file (RON).
        file: PathBuf,
        /// A kernel that overrides the session's.
        kernel: Option<PathBuf>,
    },
}

impl KernelSource {
    /// The kernel a script or session names (`demo:...` is the demo; a relative path is
    /// found beside `file`, the script or session that names it).
    pub fn named(name: &str, file: &Path) -> Result<KernelSource, OpenError> {
        if name.starts_with(DEMO_PREFIX) {
            Ok(KernelSource::Demo)
        } else {
            named_file(name, file).map(KernelSource::File)
        }
    }
}

/// How scripts and sessions name the built-in demo: any name with this prefix.
pub const DEMO_PREFIX: &str = "demo:";

/// Why a kernel could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The kernel file could not be read, or is larger than its limit
    /// ([`crate::files::KERNEL_OBJECT`]).
    #[error(transparent)]
    Read(#[from] crate::files::ReadError),
    /// The source did not assemble; every diagnostic names file:line:col.
    #[error(transparent)]
    Assemble(#[from] AsmErrors),
    /// The object file is malformed.
    #[error("{path}: {error}")]
    Object {
        /// The file.
        path: String,
        /// What is wrong with it.
        error: ObjectError,
    },
    /// The kernel cannot be launched with these options.
    #[error("{kernel}: {error}")]
    Launch {
        /// The kernel's name as shown.
        kernel: String,
        /// Why.
        error: LaunchError,
    },
    /// The session could not be read or does not fit the kernel.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The kernel a session or script names is neither beside it nor at the path from the
    /// current directory.
    #[error("cannot find the kernel `{name}` that {by} names: neither {beside} nor {name} from the current directory exists")]
    NamedKernelMissing {
        /// The session or script.
        by: String,
        /// The kernel's path as it names it.
        name: String,
        /// Where it was looked for beside the session or script.
        beside: String,
    },
}

/// The file a session or script at `by` names as its kernel (`name`, relative to `by`'s
/// folder or else to the current directory), or why it is not there.
fn named_file(name: &str, by: &Path) -> Result<PathBuf, OpenError> {
    let path = resolve_beside(name, by);
    if path.exists() || Path::new(name).is_absolute() {
        // (An absolute path that does not exist says so when it is read.)
        return Ok(path);
    }
    let beside = by
        .parent()
        .map_or_else(|| Path::new(name).to_path_buf(), |d| d.join(name));
    Err(OpenError::NamedKernelMissing {
        by: by.display().to_string(),
        name: name.to_string(),
        beside: beside.display().to_string(),
    })
}

/// Reads a kernel file: a `.wko` object, anything else assembler source (with the
/// assembler's default options: `.file` reads only under the source's directory).
pub fn load_program(path: &Path) -> Result<Program, OpenError> {
    load_program_with(path, &AssembleOptions::default())
}

/// [`load_program`] with explicit assembler options (for a source file).
pub fn load_program_with(path: &Path, asm: &AssembleOptions) -> Result<Program, OpenError> {
    load_kernel(path, asm).map(|(p, _)| p)
}

/// Reads a kernel file as [`load_program_with`] does, with the source text of a source
/// file (`None` for an object), read once.
pub fn load_kernel(
    path: &Path,
    asm: &AssembleOptions,
) -> Result<(Program, Option<String>), OpenError> {
    if path.extension().is_some_and(|e| e == "wko") {
        let name = path.display().to_string();
        let text = crate::files::read_text(path, crate::files::KERNEL_OBJECT)?;
        let p =
            Program::from_object(&text).map_err(|error| OpenError::Object { path: name, error })?;
        Ok((p, None))
    } else {
        let (p, text) = crate::asm::assemble_file_keeping_source(path, asm)?;
        Ok((p, Some(text)))
    }
}

impl Engine {
    /// Opens a kernel under the debugger with `options` (a session's own launch settings
    /// replace them when it is applied). The engine knows the kernel's path, and its
    /// source when it has one, for `list`, stops and sessions.
    pub fn open(source: KernelSource, options: LaunchOptions) -> Result<Engine, OpenError> {
        Engine::open_with(source, options, &AssembleOptions::default())
    }

    /// [`Engine::open`] with explicit assembler options for a source kernel.
    pub fn open_with(
        source: KernelSource,
        options: LaunchOptions,
        asm: &AssembleOptions,
    ) -> Result<Engine, OpenError> {
        let (session, kernel) = match source {
            KernelSource::Session { file, kernel } => {
                let s = Session::load(&file)?;
                let k = match kernel {
                    Some(k) => KernelSource::File(k),
                    None if s.kernel_file(&file).is_some() => {
                        KernelSource::File(named_file(&s.kernel, &file)?)
                    }
                    None => KernelSource::Demo,
                };
                (Some((s, file)), k)
            }
            other => (None, other),
        };
        let (program, name, text) = match &kernel {
            KernelSource::File(path) => {
                let (program, text) = load_kernel(path, asm)?;
                (program, path.display().to_string(), text)
            }
            _ => (
                crate::demo::program(),
                crate::demo::NAME.to_string(),
                Some(crate::demo::SOURCE.to_string()),
            ),
        };
        let mut engine = Engine::new(&program, options).map_err(|error| OpenError::Launch {
            kernel: name.clone(),
            error,
        })?;
        engine.set_kernel(&name, text);
        if let Some((s, file)) = session {
            s.apply(&mut engine, &file.display().to_string())?;
        }
        Ok(engine)
    }
}
