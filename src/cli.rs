//! Subcommands: thin wrappers over the emulator crate.

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use color_eyre::eyre::{eyre, Result, WrapErr};
use wavedbg_emulator::disasm;
use wavedbg_emulator::files::{self, Input};
use wavedbg_emulator::isa::Isa;

use crate::output::{emit, emit_verbatim};
use wavedbg_emulator::asm::{assemble_file_with, AssembleOptions};
use wavedbg_emulator::debug::load_program_with;

/// wavedbg: a debugger for wave32 SIMT GPU kernels.
///
/// Without a subcommand, opens the full-screen debugger on a built-in demo kernel.
#[derive(Debug, Parser)]
#[command(name = "wavedbg", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List every instruction: mnemonic, unit, format, opcode, function fields, latency,
    /// flags and operands.
    Isa {
        /// One JSON object per instruction (a JSON array).
        #[arg(long, conflicts_with = "markdown")]
        json: bool,
        /// The instruction-set reference (docs/isa.md) as Markdown.
        #[arg(long)]
        markdown: bool,
    },
    /// Assemble a kernel source (.s) into a kernel object (.wko, see docs/assembler.md).
    Asm {
        /// Kernel source file (.s) to assemble.
        input: PathBuf,
        /// Output file (default: the input with extension .wko).
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Let `.file` directives read files outside the source's own directory (by
        /// default they read only under it, after resolving symlinks and `..`).
        #[arg(long)]
        allow_file_outside_dir: bool,
    },
    /// Write a kernel's symbol file: an x86-64 ELF with its code, labels, DWARF source
    /// lines, typed buffers and shared and scratch windows (`__shared[W].w[k]`,
    /// `__scratch[V][L].w[k]`), for `gdb K.elf` and lldb's `target create K.elf`
    /// (docs/gdb.md).
    Elf {
        /// Kernel source (.s) or object (.wko).
        input: PathBuf,
        /// Output file (default: the input with extension .elf).
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// The launch the file describes (as for `serve`: `--grid` and `--workgroup`
        /// decide the shared and scratch windows it names).
        #[command(flatten)]
        launch: crate::launch::LaunchArgs,
    },
    /// Disassemble a kernel object (.wko), or a source file (.s), which is assembled first.
    /// The output is assembler input again.
    Disasm {
        /// A .wko kernel object or a .s source file.
        file: PathBuf,
        /// Let a source's `.file` directives read files outside its own directory.
        #[arg(long)]
        allow_file_outside_dir: bool,
    },
    /// Run a kernel to completion; print the requested memory dumps and a summary, or the
    /// fault with its context (exit code 1 on a fault or deadlock).
    Run(crate::run::RunArgs),
    /// Run a kernel with every sanitizer detector on (races, barrier misuse, uninitialised
    /// reads, registers used before their wait, cross-lane reads of inactive lanes) and
    /// report each distinct finding once; with --seeds N, also compare every buffer
    /// across N seeded schedules (exit code 1 if anything was found).
    Check(crate::check::CheckArgs),
    /// Open the full-screen debugger (the built-in demo kernel when none is given).
    Tui(crate::launch::DebugArgs),
    /// A line-oriented debugger with history, completion and the command language.
    Repl(crate::launch::DebugArgs),
    /// Run a command script or a saved session's command log without a terminal and print
    /// a deterministic transcript (exit code 1 if an expect fails or a command errors).
    Replay(crate::replay::ReplayArgs),
    /// Measure the emulator: throughput on a fixed set of kernels against native Rust, the
    /// cost of an armed debugger, and the cost of one resume as the grid grows.
    Bench(crate::bench::BenchArgs),
    /// Speak the Debug Adapter Protocol (VS Code, nvim-dap, Helix, Emacs dape) on stdin
    /// and stdout, or on a TCP port with --listen; the client's `launch` names the kernel
    /// (docs/dap.md).
    Dap {
        /// Listen on this address and TCP port (HOST:PORT, HOST an IP address or a name
        /// such as localhost) instead of stdin and stdout, serving one client at a time.
        #[arg(long, value_parser = Listen::parse)]
        listen: Option<Listen>,
        /// Allow listening on an address other than loopback (the protocol grants full
        /// memory access to whoever connects).
        #[arg(long)]
        allow_remote: bool,
    },
    /// Serve a kernel over the GDB remote protocol so gdb and lldb can attach.
    Serve {
        /// Kernel source (.s) or object (.wko).
        kernel: Option<PathBuf>,
        /// Address and TCP port to listen on (HOST:PORT, HOST an IP address or a name such
        /// as localhost).
        #[arg(long, default_value = "127.0.0.1:9000", value_parser = Listen::parse)]
        listen: Listen,
        /// Allow listening on an address other than loopback (the protocol grants full
        /// memory access to whoever connects).
        #[arg(long)]
        allow_remote: bool,
        /// Start from a saved session (its kernel is used when none is given).
        #[arg(long)]
        session: Option<PathBuf>,
        /// Where to write the kernel's symbol file (default: KERNEL.elf beside the kernel
        /// unless another file is there, else a temporary file; the path is printed).
        #[arg(long)]
        symbols: Option<PathBuf>,
        #[command(flatten)]
        launch: crate::launch::LaunchArgs,
    },
}

/// A `--listen` address as given: `IP:PORT`, or `HOST:PORT` with a host name, resolved as
/// gdbserver resolves one (`localhost:9000`).
#[derive(Debug, Clone)]
struct Listen {
    /// What the user wrote, for messages.
    text: String,
    /// The addresses it resolved to, IPv4 first (what `target remote 127.0.0.1:PORT`
    /// reaches); the listener binds the first that works.
    addrs: Vec<std::net::SocketAddr>,
}

impl Listen {
    fn parse(text: &str) -> std::result::Result<Listen, String> {
        use std::net::ToSocketAddrs;
        let mut addrs: Vec<std::net::SocketAddr> = match text.parse() {
            Ok(a) => vec![a],
            Err(_) => {
                let Some((host, port)) = text.rsplit_once(':') else {
                    return Err(format!(
                        "`{text}` is not HOST:PORT (for example localhost:9000)"
                    ));
                };
                let port: u16 = port
                    .parse()
                    .map_err(|_| format!("`{port}` in `{text}` is not a port number (0-65535)"))?;
                if host.is_empty() {
                    return Err(format!(
                        "`{text}` names no host (for example localhost:{port})"
                    ));
                }
                let host = host
                    .strip_prefix('[')
                    .and_then(|h| h.strip_suffix(']'))
                    .unwrap_or(host);
                (host, port)
                    .to_socket_addrs()
                    .map_err(|e| format!("cannot resolve `{host}`: {e}"))?
                    .collect()
            }
        };
        if addrs.is_empty() {
            return Err(format!("`{text}` resolves to no address"));
        }
        addrs.sort_by_key(|a| !a.is_ipv4());
        addrs.dedup();
        Ok(Listen {
            text: text.to_string(),
            addrs,
        })
    }

    /// Whether every address it names is loopback (a name that also resolves to another
    /// address is not: the listener could bind that one).
    fn is_loopback(&self) -> bool {
        self.addrs.iter().all(|a| a.ip().is_loopback())
    }

    fn bind(&self) -> Result<std::net::TcpListener> {
        std::net::TcpListener::bind(&self.addrs[..])
            .wrap_err_with(|| format!("cannot listen on {self}"))
    }
}

impl std::fmt::Display for Listen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// Runs the command line; returns the process exit code.
pub fn run(cli: Cli) -> Result<i32> {
    match cli.command {
        None => tui(crate::launch::DebugArgs::default()),
        Some(Command::Tui(args)) => tui(args),
        Some(Command::Repl(args)) => crate::repl::run(&args),
        Some(Command::Replay(args)) => crate::replay::run(args),
        Some(Command::Serve {
            kernel,
            listen,
            allow_remote,
            session,
            symbols,
            launch,
        }) => {
            if !listen.is_loopback() {
                if !allow_remote {
                    return Err(eyre!("refusing to listen on {listen}: the GDB protocol gives whoever connects full access to the kernel's memory; pass --allow-remote to do it anyway"));
                }
                eprintln_visible!("warning: listening on {listen}: anyone who can reach it gets full memory access through the GDB protocol");
            }
            // Refused before anything starts: the symbol file never replaces an input.
            if let Some(out) = &symbols {
                let inputs: Vec<Input<'_>> = [(&kernel, "the kernel"), (&session, "the session")]
                    .into_iter()
                    .filter_map(|(p, what)| {
                        Some(Input {
                            path: p.as_deref()?,
                            what,
                        })
                    })
                    .collect();
                files::check_output(out, &inputs)?;
            }
            let engine =
                crate::launch::open_engine(kernel.as_deref(), session.as_deref(), &launch)?;
            let listener = listen.bind()?;
            let addr = listener.local_addr()?;
            // The guard removes a symbol file serve made when serve returns; a signal that
            // ends it removes the file on its way.
            let _symbols = match crate::symbols::write_for_serve(&engine, symbols.as_deref()) {
                Ok(file) => {
                    file.remove_on_signals()?;
                    let p = file.path().display();
                    eprintln_visible!("wavedbg: symbols in {p} (gdb {p} -ex 'target remote {addr}'; lldb: target create {p}, then gdb-remote {addr})");
                    Some(file)
                }
                Err(e) => {
                    eprintln_visible!("wavedbg: no symbol file: {e:#}");
                    None
                }
            };
            wavedbg_gdb::serve_on(engine, listener)?;
            Ok(0)
        }
        Some(Command::Dap {
            listen,
            allow_remote,
        }) => {
            match listen {
                None => wavedbg_dap::serve_stdio()?,
                Some(listen) => {
                    if !listen.is_loopback() && !allow_remote {
                        return Err(eyre!("refusing to listen on {listen}: the Debug Adapter Protocol gives whoever connects full access to the kernel's memory; pass --allow-remote to do it anyway"));
                    }
                    let listener = listen.bind()?;
                    eprintln_visible!("wavedbg dap: listening on {}", listener.local_addr()?);
                    wavedbg_dap::serve_tcp(&listener)?;
                }
            }
            Ok(0)
        }
        Some(Command::Isa { json, markdown }) => {
            let isa = Isa::get();
            if json {
                emit_verbatim(&(serde_json::to_string_pretty(&isa.entries())? + "\n"))?;
            } else if markdown {
                emit(&isa.markdown())?;
            } else {
                emit(&isa.listing())?;
            }
            Ok(0)
        }
        Some(Command::Asm {
            input,
            output,
            allow_file_outside_dir,
        }) => {
            let options = AssembleOptions {
                allow_files_outside_dir: allow_file_outside_dir,
            };
            let out = output.unwrap_or_else(|| input.with_extension("wko"));
            let inputs = [Input {
                path: &input,
                what: "the kernel source",
            }];
            // Refused before assembling, so the error is about the output alone.
            files::check_output(&out, &inputs)?;
            let program = assemble_file_with(&input, &options)?;
            // Nor over the higher-level sources its `.file`s name.
            let sources = program.source_info.paths_beside(Some(&input));
            let inputs: Vec<Input<'_>> = inputs
                .into_iter()
                .chain(files::source_inputs(&sources))
                .collect();
            files::write_file(&out, program.to_object()?.as_bytes(), &inputs)?;
            eprintln_visible!(
                "{}: kernel `{}`, {} bytes of code -> {}",
                input.display(),
                program.name,
                program.code_bytes(),
                out.display()
            );
            Ok(0)
        }
        Some(Command::Elf {
            input,
            output,
            launch,
        }) => {
            let out = output.unwrap_or_else(|| input.with_extension("elf"));
            let program = load_program_with(&input, &launch.assemble_options())?;
            crate::symbols::write(&program, &input, launch.options(), &out)?;
            eprintln_visible!(
                "{}: symbols -> {} (gdb {} -ex 'target remote ADDR')",
                input.display(),
                out.display(),
                out.display()
            );
            Ok(0)
        }
        Some(Command::Run(args)) => crate::run::run(args),
        Some(Command::Check(args)) => crate::check::run(args),
        Some(Command::Bench(args)) => crate::bench::run(args),
        Some(Command::Disasm {
            file,
            allow_file_outside_dir,
        }) => {
            let options = AssembleOptions {
                allow_files_outside_dir: allow_file_outside_dir,
            };
            let program = load_program_with(&file, &options)?;
            emit(&disasm::disassemble(&program))?;
            Ok(0)
        }
    }
}

fn tui(args: crate::launch::DebugArgs) -> Result<i32> {
    let engine = args.open()?;
    let options = wavedbg_tui::TuiOptions {
        record: args.record,
        history: wavedbg_emulator::debug::session::history_path(),
    };
    match wavedbg_tui::run(engine, options) {
        Ok(()) => Ok(0),
        Err(e @ wavedbg_tui::TuiError::NotATerminal) => {
            eprintln_visible!("wavedbg: {e}");
            Ok(2)
        }
        Err(e) => Err(e.into()),
    }
}
