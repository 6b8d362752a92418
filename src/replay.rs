//! `wavedbg replay`: run a command script or a session's log without a terminal and print
//! a deterministic transcript; compare it with a golden file or bless one.

use std::path::{Path, PathBuf};

use crate::output::emit;
use clap::Args;
use color_eyre::eyre::{eyre, Result, WrapErr};
use wavedbg_emulator::asm::AssembleOptions;
use wavedbg_emulator::debug::driver::{Driver, Writes};
use wavedbg_emulator::debug::session::{Script, Session};
use wavedbg_emulator::debug::{Engine, KernelSource};
use wavedbg_emulator::files::{self, Input};

/// Options of `wavedbg replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// A command script (one command per line, `#` comments, `#! kernel PATH` header) or a
    /// saved session (.ron), whose command log is replayed.
    file: PathBuf,
    /// The kernel (overrides the script's `#! kernel` line or the session's kernel).
    #[arg(long)]
    kernel: Option<PathBuf>,
    /// Compare the transcript with this golden file and show a diff if it differs.
    #[arg(long, value_name = "GOLDEN")]
    check: Option<PathBuf>,
    /// With --check: rewrite the golden file with this transcript.
    #[arg(long, requires = "check")]
    bless: bool,
    /// Let the script's commands write files (`save`); without it they are refused, so a
    /// script or session from elsewhere cannot overwrite your files.
    #[arg(long)]
    allow_writes: bool,
    /// Let the kernel source's `.file` directives read files outside the source's own
    /// directory (by default they read only under it, after resolving symlinks and `..`).
    #[arg(long)]
    allow_file_outside_dir: bool,
}

/// The result of replaying a script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transcript {
    /// Every command with its output, then the summary line.
    pub text: String,
    /// Expects that held.
    pub passed: usize,
    /// Expects that failed.
    pub failed: usize,
    /// Commands that reported an error.
    pub errors: usize,
    /// Commands that ran the launch into its instruction budget (a budget fault).
    pub budget: usize,
    /// Why the run failed, one line per failing command or expect (`line N: ...`).
    pub failures: Vec<String>,
}

impl Transcript {
    /// Whether every command ran, every expect held and no command ran into the
    /// instruction budget.
    pub fn ok(&self) -> bool {
        self.failures.is_empty()
    }

    /// Why the run failed, for a message on stderr: the first few failures.
    pub fn why(&self) -> String {
        const SHOWN: usize = 5;
        let mut s = format!(
            "{} command{} failed and {} expect{} failed",
            self.errors,
            if self.errors == 1 { "" } else { "s" },
            self.failed,
            if self.failed == 1 { "" } else { "s" }
        );
        if self.budget > 0 {
            s.push_str(", and the instruction budget ran out");
        }
        for f in self.failures.iter().take(SHOWN) {
            s.push_str("\n  ");
            s.push_str(f);
        }
        if self.failures.len() > SHOWN {
            s.push_str(&format!("\n  ... and {} more", self.failures.len() - SHOWN));
        }
        s
    }
}

/// Runs the commands on `engine` through the driver and builds the transcript; `writes`
/// says whether commands that write files may run.
pub fn transcript(engine: &mut Engine, commands: &[(usize, String)], writes: Writes) -> Transcript {
    let mut t = Transcript {
        text: String::new(),
        passed: 0,
        failed: 0,
        errors: 0,
        budget: 0,
        failures: Vec::new(),
    };
    let mut driver = Driver::replaying(writes);
    for (n, line) in commands {
        t.text.push_str(&format!("(wavedbg) {line}\n"));
        match driver.run_line(engine, line).result() {
            Some(Ok(out)) => {
                t.text.push_str(&out.text);
                match &out.expect {
                    Some(e) if e.passed => t.passed += 1,
                    Some(e) => {
                        t.failed += 1;
                        t.failures
                            .push(format!("line {n}: expect FAILED: {}", e.text));
                    }
                    None => {}
                }
                // A script that ran into the budget (an endless loop, or a budget too small
                // for it) did not run what it meant to: the run fails, as `wavedbg run`'s.
                if let Some(limit) = out.stop.as_ref().and_then(|s| s.budget_exhausted()) {
                    t.budget += 1;
                    t.failures.push(format!(
                        "line {n}: `{line}`: the instruction budget of {limit} ran out"
                    ));
                }
            }
            Some(Err(e)) => {
                t.errors += 1;
                let first = e.to_string();
                let first = first.lines().next().unwrap_or_default();
                t.failures.push(format!("line {n}: `{line}`: {first}"));
                t.text.push_str(&format!("error: {e}\n"));
            }
            None => {}
        }
    }
    if t.errors > 0 {
        t.text.push_str(&format!(
            "{} command{} failed\n",
            t.errors,
            if t.errors == 1 { "" } else { "s" }
        ));
    }
    t.text
        .push_str(&format!("{} passed, {} failed\n", t.passed, t.failed));
    t
}

/// Opens a script or session file: the engine it runs on and its commands.
pub fn open(
    file: &Path,
    kernel_override: Option<&Path>,
    asm: &AssembleOptions,
) -> Result<(Engine, Vec<(usize, String)>)> {
    let is_ron = file.extension().is_some_and(|e| e == "ron");
    // A session's limit when the name says so; else a script's, which is no larger.
    let text = files::read_text(
        file,
        if is_ron {
            files::SESSION
        } else {
            files::SCRIPT
        },
    )?;
    let name = file.display().to_string();
    let is_session = is_ron || text.trim_start().starts_with('(');
    let script = if is_session {
        Script::from_session(&Session::from_ron(&text, &name)?)
    } else {
        Script::parse(&text, &name)?
    };
    let source = match (kernel_override, &script.kernel) {
        (Some(k), _) => KernelSource::File(k.to_path_buf()),
        (None, Some(k)) => KernelSource::named(k, file)?,
        (None, None) => {
            return Err(eyre!(
                "{name}: no kernel: add a `#! kernel PATH` line or pass --kernel"
            ))
        }
    };
    let engine = Engine::open_with(source, script.launch, asm)?;
    Ok((engine, script.commands))
}

/// Runs `wavedbg replay`.
pub fn run(args: ReplayArgs) -> Result<i32> {
    let asm = AssembleOptions {
        allow_files_outside_dir: args.allow_file_outside_dir,
    };
    let (mut engine, commands) = open(&args.file, args.kernel.as_deref(), &asm)?;
    let writes = if args.allow_writes {
        Writes::Allowed
    } else {
        Writes::Refused
    };
    let kernel = engine.kernel_path().map(PathBuf::from).unwrap_or_default();
    let sources = engine.source_paths();
    let mut inputs = vec![
        Input {
            path: &args.file,
            what: "the script being replayed",
        },
        Input {
            path: &kernel,
            what: "the kernel",
        },
    ];
    inputs.extend(files::source_inputs(&sources));
    if let (Some(golden), true) = (&args.check, args.bless) {
        // Before the run, so a refused golden file costs nothing.
        files::check_output(golden, &inputs)?;
    }
    let t = transcript(&mut engine, &commands, writes);
    let code = if t.ok() { 0 } else { 1 };
    let Some(golden) = &args.check else {
        emit(&t.text)?;
        return Ok(code);
    };
    if args.bless {
        // A golden file is a promise that the run passes: never bless a failing one.
        if !t.ok() {
            eprintln_visible!(
                "not blessing {}: the run failed ({})",
                golden.display(),
                t.why()
            );
            return Ok(1);
        }
        files::write_file(golden, t.text.as_bytes(), &inputs)?;
        eprintln_visible!("blessed {}", golden.display());
        return Ok(0);
    }
    let expected = match files::read_text(golden, files::GOLDEN) {
        Ok(text) => text,
        Err(e @ files::ReadError::Io { .. }) => {
            return Err(e).wrap_err("(create the golden file with --bless)")
        }
        Err(e) => return Err(e.into()),
    };
    if expected == t.text {
        if t.ok() {
            eprintln_visible!("transcript matches {}", golden.display());
        } else {
            eprintln_visible!(
                "transcript matches {}, but the run failed ({})",
                golden.display(),
                t.why()
            );
        }
        return Ok(code);
    }
    let diff = similar::TextDiff::from_lines(&expected, &t.text);
    let mut out = format!(
        "transcript differs from {} (- golden, + now):\n",
        golden.display()
    );
    out.push_str(
        &diff
            .unified_diff()
            .context_radius(3)
            .header("golden", "now")
            .to_string(),
    );
    if let Some(note) = only_whitespace(&expected, &t.text) {
        out.push_str(&format!("note: {note}\n"));
    }
    emit(&out)?;
    Ok(1)
}

/// Says so when a golden file differs from the transcript only in line endings (CRLF
/// where wavedbg writes LF, as an editor or a Git checkout on Windows leaves them) or in
/// the newline at its end, which a unified diff shows poorly.
fn only_whitespace(golden: &str, now: &str) -> Option<String> {
    let crlf = golden.contains("\r\n");
    let lf = |s: &str| s.replace("\r\n", "\n");
    let (g, n) = (lf(golden), lf(now));
    let tail = |s: &str| s.trim_end_matches('\n').len();
    let endings = "the golden file has CRLF (\\r\\n) line endings, the transcript LF";
    if crlf && g == n {
        return Some(format!("the only difference is line endings: {endings}"));
    }
    if g != n && g.trim_end_matches('\n') == n.trim_end_matches('\n') {
        let which = if tail(&g) == g.len() {
            "the golden file lacks the newline at the end of its last line"
        } else if tail(&n) == n.len() {
            "the transcript lacks the newline at the end of its last line"
        } else {
            "the two end in a different number of newlines"
        };
        return Some(if crlf {
            format!(
                "the only differences are line endings ({endings}) and trailing newlines: {which}"
            )
        } else {
            format!("the only difference is a trailing newline: {which}")
        });
    }
    None
}
