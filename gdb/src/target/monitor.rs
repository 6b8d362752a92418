//! `MonitorCmd`: gdbstub calls it for `qRcmd`, gdb's `monitor CMD` and lldb's `process
//! plugin packet monitor CMD`. It runs the command language (docs/commands.md) on the
//! engine, plus a few of the server's own.
//!
//! Commands act on the engine's selected wave, which follows every stop and gdb's
//! `thread N`, and on the selected lane, which is the client's `$lane` register. Nothing
//! here may leave the client believing something the server does not, so these are
//! refused, each with what to do instead:
//! - commands that run the kernel (`continue`, `stepi`, `advance`, `finish`, `restart`,
//!   `load`): gdb would not know the kernel moved;
//! - `wave N`: gdb's current thread would stay behind (`thread T` does both);
//! - `lane N`: gdb's cached `$lane` and `$lvN` would stay behind until the next stop (a
//!   write of the `lane` register does both: gdb reads registers again after it);
//! - `set` of a register (gdb caches registers; `set var $u8 = 1` writes through it) and
//!   `set scheduler-locking` (gdb's own setting decides what runs);
//! - `delete`, `enable`, `disable`, `condition`, `ignore` of a breakpoint or watchpoint the
//!   client inserted (`delete` without a number deletes only the engine's own);
//! - while there is no process (after an extended-remote `kill`), anything that looks at
//!   waves: there are none until `run`.
//!
//! `why`, `info breakpoints` and `info watchpoints` name the client's breakpoints and
//! watchpoints by address, as the client does not tell the server its numbers. `save` and
//! `load` write and read files on the server's machine, so they are refused when the server
//! listens on a non-loopback address.

use std::fmt::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};

use gdbstub::target::ext::monitor_cmd::{ConsoleOutput, MonitorCmd};
use wavedbg_emulator::debug::breakpoint::Owner;
use wavedbg_emulator::debug::command::{self, Command, Info, SetTarget};
use wavedbg_emulator::debug::driver::{Driver, Input, Plan};
use wavedbg_emulator::debug::view;
use wavedbg_emulator::debug::{PointRow, StopReason};
use wavedbg_emulator::disasm;

use super::{RefusedPoint, WaveTarget};
use crate::memory;

impl MonitorCmd for WaveTarget {
    fn handle_monitor_cmd(&mut self, cmd: &[u8], mut out: ConsoleOutput<'_>) -> Result<(), String> {
        let text = run(self, &String::from_utf8_lossy(cmd));
        out.write_raw(text.as_bytes());
        Ok(())
    }
}

/// The server's own commands, for `monitor help`.
pub const SERVER_HELP: &str = "\
Server commands (wavedbg serve):
  why                    describe the last stop (fault text, watchpoint lanes, deadlock,
                         both sides of a sanitizer finding)
  threads                thread ids (global wave id + 1) and the waves in them
  windows                the address windows, and those of the selected wave:
                         shared of workgroup W at 0x8000000000000000 + (W << 20),
                         scratch of wave V lane L at 0xc000000000000000 + (V << 21) + (L << 16)
  disassemble [LOC]      the kernel's own disassembly around LOC
  decode ADDR [N]        N instructions (default 1) from ADDR, one a line: address,
                         length in bytes, text (scripts/wavedbg.gdb's disassembler)
  launch                 the launch in one line of KEY=VALUE: grid (workgroups), workgroup
                         (lanes), shared (bytes a workgroup), scratch (bytes a lane),
                         resident (workgroups at once), kernel (its name)
The sanitizer: `monitor set check races|sync|init|hazards|xlane|all [on|off]`, then a finding
stops the run with SIGTRAP and its description; `monitor info findings` lists them.
Run control, the current thread, the selected lane and registers stay with the client:
use its continue, stepi, Ctrl-C, kill, `thread N`, `set var $lane = N` and
`set var $REG = VALUE`.
";

fn refused(cmd: &Command, files_allowed: bool) -> Option<&'static str> {
    match cmd {
        Command::SchedulerLocking(_) => Some(
            "the client decides which waves run: use its `set scheduler-locking on|step|off`\n",
        ),
        Command::Set {
            target: SetTarget::Register(_),
            ..
        } => Some(
            "the client caches registers: change them there (gdb: `set var $u8 = 1`, `set var $v3[5] = 1`; lldb: `register write`)\n",
        ),
        Command::Lane(_) => Some(
            "the client selects the lane (it caches `$lane` and the `lvN` registers): gdb: `lane N` (scripts/wavedbg.gdb) or `set var $lane = N`; lldb: `register write lane N`\n",
        ),
        Command::Restart | Command::Run | Command::Start => Some(
            "restart from the client: `target extended-remote` then `run`, or kill and reconnect\n",
        ),
        c if c.runs_machine() || matches!(c, Command::Interrupt) => {
            Some("run control belongs to the client: use continue, stepi, until, reverse-stepi, reverse-continue or Ctrl-C there\n")
        }
        Command::Load(_) => Some("load a session with `wavedbg serve --session FILE`\n"),
        Command::Save(_) if !files_allowed => {
            Some("save is refused when the server listens on a non-loopback address\n")
        }
        _ => None,
    }
}

/// Whether a command needs the waves of a running kernel (refused while there is none).
fn needs_process(cmd: &Command) -> bool {
    !matches!(
        cmd,
        Command::Help(_)
            | Command::Info(Info::Breakpoints | Info::Watchpoints | Info::Display)
            | Command::Break { .. }
            | Command::Delete(_)
            | Command::Enable(..)
            | Command::Ignore(..)
            | Command::Condition(..)
            | Command::Disassemble(Some(_))
            | Command::Undisplay(_)
            | Command::Save(_)
    )
}

/// Whether a command shows or changes the selected wave (or its workgroup's shared memory
/// and its scratch).
fn views_selected_wave(cmd: &Command) -> bool {
    matches!(
        cmd,
        Command::Print { .. }
            | Command::Examine { .. }
            | Command::ExamineCode { .. }
            | Command::Set { .. }
            | Command::Expect { .. }
            | Command::Display(_)
            | Command::Info(Info::Lanes(_) | Info::Frame | Info::Registers(_) | Info::Changes)
            | Command::Backtrace
            | Command::Frame(_)
            | Command::Disassemble(None)
            | Command::List(None)
            | Command::Context
    )
}

/// The refusal of [`views_selected_wave`] commands while the client is on the last stop's
/// exited wave.
fn on_exited_wave(t: &WaveTarget) -> String {
    let id = t.ghost.unwrap_or_default();
    format!("wave {id} has exited and its slot holds another wave, so the server has no wave {id} to show: its registers are still in the client (gdb: `info registers`, `p $v3`; lldb: `register read`), and `thread N` of a listed wave selects that one\n")
}

const NO_PROCESS: &str =
    "The kernel is not running (killed, or the launch ended): `run` starts it again.\n";

/// Refuses what would make the client's view and the server's differ (module docs).
fn conflicts(t: &WaveTarget, cmd: &Command) -> Option<String> {
    let owned = |id: &u32| {
        t.client_owns(*id).then(|| {
            format!("{id} was inserted by the client: delete or change it there (it numbers it otherwise)\n")
        })
    };
    match cmd {
        Command::Wave(Some(id)) => {
            let m = t.engine().machine();
            Some(match m.wave_index(*id).filter(|&i| t.listed(i)) {
                Some(_) => {
                    let tid = *id as u64 + 1;
                    format!("the client selects threads: wave {id} is thread id {tid} (gdb: `wave {id}` from scripts/wavedbg.gdb, or `thread find wave {id},` then `thread N`; lldb: `thread list`, then `thread select N` where tid = {tid:#x})\n")
                }
                None => format!("wave {id} is not in any thread (`monitor threads` lists them)\n"),
            })
        }
        // Every one, when none is listed: the engine's own ones (below).
        Command::Delete(ids) | Command::Enable(ids, _) => {
            let e = t.engine();
            let mut all: Vec<u32> = (e.breakpoints().iter().map(|b| b.id))
                .chain(e.watchpoints().iter().map(|w| w.id))
                .collect();
            all.sort_unstable();
            let named = if ids.is_all() {
                Vec::new()
            } else {
                ids.pick(&all).0
            };
            named.iter().find_map(owned)
        }
        Command::Ignore(id, _) | Command::Condition(id, _) => owned(id),
        _ => None,
    }
}

/// The engine's own breakpoints and watchpoints, not the client's: what `delete`,
/// `enable` and `disable` without a number act on.
fn own_points(t: &WaveTarget) -> Vec<u32> {
    let e = t.engine();
    e.breakpoints()
        .iter()
        .map(|b| b.id)
        .chain(e.watchpoints().iter().map(|w| w.id))
        .filter(|id| !t.client_owns(*id))
        .collect()
}

/// `info breakpoints` / `info watchpoints`: the engine's own (numbered), then the client's
/// (by address, as the client numbers them itself), told apart by their owner.
pub fn points(t: &WaveTarget, watch_only: bool) -> String {
    let e = t.engine();
    let rows = e.point_rows();
    let (own, client): (Vec<PointRow>, Vec<PointRow>) = rows
        .into_iter()
        .filter(|r| !watch_only || matches!(r, PointRow::Watch(_)))
        .partition(|r| *r.owner() == Owner::User);
    let mut s = String::new();
    if !own.is_empty() {
        s.push_str(&view::points_table(e.machine(), &own, watch_only));
    }
    if !client.is_empty() {
        s.push_str("Inserted by the client (which numbers them itself):\n");
        // Breakpoints first, then watchpoints, each in the order the client inserted them.
        let (breaks, watches): (Vec<&PointRow>, Vec<&PointRow>) =
            client.iter().partition(|r| matches!(r, PointRow::Break(_)));
        for row in breaks.into_iter().chain(watches) {
            if let Owner::Client(label) = row.owner() {
                let _ = writeln!(s, "  {label}");
            }
        }
    }
    let refused: Vec<&RefusedPoint> = t
        .refused_points
        .iter()
        .filter(|p| !watch_only || p.watch)
        .collect();
    if !refused.is_empty() {
        s.push_str("Refused (the client could not insert them):\n");
        for p in refused {
            let _ = writeln!(s, "  {}: {}", p.label, p.why);
        }
    }
    if s.is_empty() {
        s.push_str(if watch_only {
            "No watchpoints.\n"
        } else {
            "No breakpoints or watchpoints.\n"
        });
    }
    s
}

/// `why`: the engine's description of the last stop (it names the client's points by
/// address, as the client knows them).
pub fn why(t: &WaveTarget) -> String {
    let Some(stop) = t.engine().last_stop() else {
        return "The kernel has not stopped yet (it is at its launch).\n".into();
    };
    let addr = match &stop.reason {
        StopReason::Fault(f) => memory::fault_addr_line(f),
        _ => None,
    };
    format!(
        "{}\n{}",
        view::describe_stop(t.engine(), stop),
        addr.unwrap_or_default()
    )
}

/// The listed threads, as the client lists them (the last stop's exited wave included),
/// in wave order: thread id (global wave id + 1), wave, workgroup, index in it, state
/// and PC.
pub fn threads(t: &WaveTarget) -> String {
    if t.no_process {
        return "No threads: the kernel is not running (`run` starts it again).\n".into();
    }
    let e = t.engine();
    let m = e.machine();
    let mut s = String::from("  tid    wave   workgroup  wave_in_wg  state       pc\n");
    for tid in t.listed_tids() {
        let Ok(w) = t.readable(tid) else { continue };
        let selected = if t.on_ghost {
            t.ghost_of(tid).is_some()
        } else {
            t.slot(tid) == Some(e.selected_wave)
        };
        let _ = writeln!(
            s,
            "{} {:<6} {:<6} {:<10} {:<11} {:<11} {}",
            if selected { "*" } else { " " },
            w.id as u64 + 1,
            w.id,
            w.workgroup,
            w.index,
            w.state.name(),
            view::pc_text(m, w.pc)
        );
    }
    s
}

/// The most instructions one `decode` lists.
const MAX_DECODE: usize = 1024;

/// `decode ADDR [N]`: the instructions from the one that starts at ADDR, up to N (default
/// 1, at most [`MAX_DECODE`]), one a line as `ADDRESS LENGTH TEXT` (hex address, length in
/// bytes, the text as `disassemble` shows it, branch targets by label; `.word 0x...` for
/// a word that is no instruction). Nothing when no instruction starts at ADDR (inside a
/// 64-bit instruction, past the code). scripts/wavedbg.gdb's disassembler shows these
/// texts in gdb's `x/i`, `disassemble`, `display/i` and `layout asm`; the code is
/// read-only, so it keeps them.
pub fn decode(t: &WaveTarget, args: &str) -> String {
    const USAGE: &str =
        "usage: decode ADDR [N]  (N instructions from ADDR: address, length, text)\n";
    let number = |w: &str| match w.strip_prefix("0x").or_else(|| w.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => w.parse().ok(),
    };
    let words: Vec<&str> = args.split_whitespace().collect();
    let (addr, n) = match words.as_slice() {
        [a] => (number(a), Some(1)),
        [a, n] => (number(a), number(n)),
        [_, _, extra, ..] => {
            return format!("`decode` takes at most ADDR and N (unexpected `{extra}`)\n{USAGE}")
        }
        _ => (None, None),
    };
    let (Some(addr), Some(n)) = (addr, n) else {
        return USAGE.into();
    };
    let program = t.engine().machine().program();
    let lines = disasm::decode_all(&program.code);
    let labels = disasm::labels_for(&program.labels, &lines);
    let Some(first) = lines.iter().position(|l| l.addr == addr) else {
        return String::new();
    };
    let mut s = String::new();
    for line in lines[first..].iter().take((n as usize).min(MAX_DECODE)) {
        let text = match &line.instr {
            Some(i) => disasm::instr_text(i, line.addr, &labels),
            None => format!(".word {:#010x}", line.words[0]),
        };
        let _ = writeln!(s, "{:#x} {} {text}", line.addr, line.words.len() * 4);
    }
    s
}

/// `launch`: the launch's shape in one line of `KEY=VALUE` words, for scripts
/// (scripts/wavedbg.gdb's `info dispatches`, `info agents` and `info queues`). It does not
/// change while the server runs, so it is answered with or without a process.
pub fn launch(t: &WaveTarget) -> String {
    let m = t.engine().machine();
    let l = m.launch();
    format!(
        "grid={} workgroup={} shared={} scratch={} resident={} kernel={}\n",
        l.grid,
        l.workgroup_lanes,
        l.shared_bytes,
        l.scratch_bytes,
        m.slots.len(),
        m.program().name
    )
}

/// What `quit` (and its aliases) says: the client ends the session, not a monitor command.
const QUIT: &str = "\
the client ends the session, not `monitor`: gdb's `detach` (or `quit`, which detaches) \
leaves the kernel as it is for the next client, and `kill` ends the kernel and the server \
(lldb: `process detach`, `process kill`)\n";

/// `wave` alone on the last stop's exited wave, which the engine no longer has.
fn current_ghost(t: &WaveTarget) -> Option<String> {
    let w = t.ghost_wave()?;
    Some(format!(
        "[Current wave is {} (workgroup {}, wave_in_wg {}), exited; thread id {}]\n",
        w.id,
        w.workgroup,
        w.index,
        w.id as u64 + 1
    ))
}

/// Runs one monitor command line and returns its output.
pub fn run(t: &mut WaveTarget, line: &str) -> String {
    let line = line.trim();
    let (word, rest) = line
        .split_once(char::is_whitespace)
        .map_or((line, ""), |(w, r)| (w, r.trim()));
    if matches!(word, "why" | "threads" | "launch" | "windows") {
        if let Some((_, refusal)) = command::unexpected_argument(word, rest) {
            return refusal + "\n";
        }
    }
    match word {
        w if wavedbg_emulator::debug::driver::QUIT_WORDS.contains(&w) => return QUIT.into(),
        "why" if t.no_process => return NO_PROCESS.into(),
        "why" => return why(t),
        "threads" => return threads(t),
        "launch" => return launch(t),
        "windows" => {
            let e = t.engine();
            let wave = (!t.no_process && !t.on_ghost).then_some(e.selected_wave);
            return memory::describe(e.machine(), wave);
        }
        "decode" => return decode(t, rest),
        "help" if rest.is_empty() => {
            let base = command::help(None, 0).unwrap_or_default();
            return format!("{base}\n{SERVER_HELP}");
        }
        _ => {}
    }
    let planned = match Driver::non_interactive().plan(t.engine(), Input::Line(line)) {
        // A monitor's driver asks nothing (gdb's batch mode), and the commands a driver
        // that asks would ask about (`restart`, `load`) are refused below, saying what to
        // do instead.
        Plan::Run(planned) | Plan::Confirm { planned, .. } => planned,
        Plan::Invalid { error, .. } => return format!("{error}\n"),
        Plan::Nothing | Plan::Quit => return String::new(),
    };
    let cmd = &planned.command;
    if let Some(why) = refused(cmd, t.files_allowed) {
        return why.to_string();
    }
    if let Some(why) = conflicts(t, cmd) {
        return why;
    }
    if t.no_process && needs_process(cmd) {
        return NO_PROCESS.into();
    }
    if let (Command::Wave(None), Some(text)) = (cmd, current_ghost(t)) {
        return text;
    }
    if t.on_ghost && views_selected_wave(cmd) {
        return on_exited_wave(t);
    }
    match cmd {
        Command::Delete(ids) if ids.is_all() => {
            let own = own_points(t);
            t.delete_points(own);
            return String::new();
        }
        Command::Enable(ids, on) if ids.is_all() => {
            for id in own_points(t) {
                // Cannot fail: the point was just listed.
                let _ = t.engine.set_enabled(id, *on);
            }
            return String::new();
        }
        Command::Info(Info::Breakpoints) => return points(t, false),
        Command::Info(Info::Watchpoints) => return points(t, true),
        _ => {}
    }
    let engine = &mut t.engine;
    match catch_unwind(AssertUnwindSafe(|| planned.run(engine))) {
        Ok(ran) => match ran.result {
            Ok(out) => out.text,
            Err(e) => format!("{e}\n"),
        },
        Err(_) => "internal error: the command failed (the server goes on)\n".into(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Each lane stores its id to shared word `lane` of its workgroup (2 waves).
    pub(crate) fn target() -> WaveTarget {
        let src = "\
.kernel t
.workgroup 64
.grid 1
.shared 128
    vlaneid v0
    vshli v1, v0, 2
    st.shared.b32 v0, v1, 0
    wait.ls 0
    end
";
        WaveTarget::new(crate::testing::engine(src, 8))
    }

    #[test]
    fn what_would_desynchronize_the_client_is_refused() {
        let mut t = target();
        assert!(run(&mut t, "wave 1").contains("wave 1 is thread id 2"));
        assert!(run(&mut t, "thread 1").contains("`wave 1` from scripts/wavedbg.gdb"));
        assert!(run(&mut t, "wave 7").contains("wave 7 is not in any thread"));
        assert_eq!(t.engine().selected_wave, 0);
        assert!(run(&mut t, "set u8 = 1").contains("the client caches registers"));
        assert!(run(&mut t, "set v3[2] = 1").contains("the client caches registers"));
        assert!(run(&mut t, "set scheduler-locking off").contains("the client decides"));
        // The lane is the client's `$lane` register, which it caches.
        let out = run(&mut t, "lane 5");
        assert!(out.contains("the client selects the lane"), "{out}");
        assert!(out.contains("set var $lane = N"), "{out}");
        assert!(run(&mut t, "lane 40").contains("lane 40 out of range (0-31)"));
        assert_eq!(t.engine().selected_lane, 0);
        assert!(
            run(&mut t, "set shared:4 = 7").is_empty(),
            "memory may be set"
        );
        // Nothing asks (gdb's batch mode): a restart is refused, saying what to do, and
        // `set confirm` is harmless.
        for line in ["run", "r", "restart"] {
            let out = run(&mut t, line);
            assert!(out.contains("restart from the client"), "{line}: {out}");
            assert!(!out.contains("(y or n)"), "{line}: {out}");
        }
        assert!(run(&mut t, "set confirm off").is_empty());
        for line in [
            "continue",
            "stepi",
            "stepi all",
            "stepi alone 3",
            "finish",
            "advance barrier",
        ] {
            let pcs: Vec<u64> = t.engine().machine().waves.iter().map(|w| w.pc).collect();
            assert!(
                run(&mut t, line).contains("run control belongs to the client"),
                "{line}"
            );
            let after: Vec<u64> = t.engine().machine().waves.iter().map(|w| w.pc).collect();
            assert_eq!(pcs, after, "`monitor {line}` ran nothing");
        }
        t.no_process = true;
        assert!(run(&mut t, "threads").starts_with("No threads"));
        assert_eq!(
            run(&mut t, "launch"),
            "grid=1 workgroup=64 shared=128 scratch=0 resident=1 kernel=t\n"
        );
        assert!(run(&mut t, "info waves").contains("not running"));
        assert!(run(&mut t, "info breakpoints").starts_with("No breakpoints"));
    }

    /// Commands that take no argument name the one given; `wave` alone shows the current
    /// wave; `quit` says how the client ends the session and ends nothing.
    #[test]
    fn extra_arguments_are_named_and_wave_alone_shows_the_current_wave() {
        let mut t = target();
        for (line, extra) in [
            ("threads 5", "5"),
            ("why foo", "foo"),
            ("launch x", "x"),
            ("windows y z", "y"),
            ("info waves extra", "extra"),
            ("continue 2", "2"),
        ] {
            let out = run(&mut t, line);
            assert!(
                out.contains(&format!("takes no argument (unexpected `{extra}`)")),
                "{line}: {out}"
            );
        }
        assert!(run(&mut t, "decode 0 1 2").contains("(unexpected `2`)"));
        let shown = run(&mut t, "wave");
        assert!(
            shown.starts_with("[Current wave is 0 (workgroup 0, wave_in_wg 0), ready]"),
            "{shown}"
        );
        for line in ["quit", "q", "exit"] {
            assert_eq!(run(&mut t, line), QUIT, "{line}");
        }
        t.no_process = true;
        assert_eq!(run(&mut t, "wave"), NO_PROCESS);
    }

    /// `decode` lists address, length and text of each instruction from the one asked,
    /// and nothing where no instruction starts.
    #[test]
    fn decode_lists_instructions_with_their_lengths() {
        let mut t = target();
        // vlaneid (4 bytes), vshli (8), st.shared (8), wait.ls (4), end (4).
        assert_eq!(run(&mut t, "decode 0"), "0x0 4 vlaneid v0\n");
        let all = run(&mut t, "decode 0x0 100");
        let rows: Vec<(&str, &str)> = all
            .lines()
            .filter_map(|l| {
                let mut w = l.split(' ');
                Some((w.next()?, w.next()?))
            })
            .collect();
        assert_eq!(
            rows,
            [
                ("0x0", "4"),
                ("0x4", "8"),
                ("0xc", "8"),
                ("0x14", "4"),
                ("0x18", "4")
            ],
            "{all}"
        );
        assert!(all.ends_with("0x18 4 end\n"), "{all}");
        assert_eq!(
            run(&mut t, "decode 12 2"),
            "0xc 8 st.shared.b32 v0, v1, 0\n0x14 4 wait.ls 0\n"
        );
        // Inside a 64-bit instruction, past the code: nothing.
        assert_eq!(run(&mut t, "decode 0x8"), "");
        assert_eq!(run(&mut t, "decode 0x1c"), "");
        assert!(run(&mut t, "decode").starts_with("usage: decode"));
        assert!(run(&mut t, "decode x").starts_with("usage: decode"));
        t.no_process = true;
        assert_eq!(
            run(&mut t, "decode 0"),
            "0x0 4 vlaneid v0\n",
            "the code is still there"
        );
    }

    /// The client's points are the engine's, owned by the client: listings and stop
    /// descriptions name them as the client does, from the owner, not by re-reading text.
    #[test]
    fn the_clients_points_are_named_as_the_client_knows_them() {
        use gdbstub::target::ext::breakpoints::{HwWatchpoint, SwBreakpoint, WatchKind};
        let mut t = target();
        let m = t.engine().machine();
        let starts: Vec<u64> = (0..64u64)
            .map(|i| i * 4)
            .filter(|&a| m.instr_at(a).is_some())
            .collect();
        // The engine's breakpoint on the second instruction, the client's on the third.
        let (own_at, client_at) = (starts[1], starts[2]);
        let set = run(&mut t, &format!("break *{own_at:#x}"));
        assert!(
            set.starts_with(&format!("Breakpoint 1 at {own_at:#06x}")),
            "{set}"
        );
        assert_eq!(t.add_sw_breakpoint(client_at, 1).ok(), Some(true));
        let shared = crate::memory::Window::shared_addr(0, 8);
        assert_eq!(
            t.add_hw_watchpoint(shared, 4, WatchKind::Write).ok(),
            Some(true)
        );
        let listed = run(&mut t, "info breakpoints");
        assert!(listed.starts_with("Num  Type"), "{listed}");
        assert!(listed.contains("\n1    breakpoint"), "{listed}");
        assert!(
            !listed.contains("\n2    "),
            "the client's are not numbered: {listed}"
        );
        assert!(
            listed.contains(&format!("Inserted by the client (which numbers them itself):\n  Breakpoint at {client_at:#06x}\n  Hardware watchpoint at 0x8000000000000008 (shared:0x8 of workgroup 0, 4 bytes)\n")),
            "{listed}"
        );
        // The engine's own breakpoint stops with its number, the client's with its name.
        t.execute(crate::plan::Plan::All);
        assert!(why(&t).starts_with("Breakpoint 1, wave 0"), "{}", why(&t));
        t.execute(crate::plan::Plan::All);
        assert!(
            why(&t).starts_with(&format!("Breakpoint at {client_at:#06x}, wave 0")),
            "{}",
            why(&t)
        );
        // A session saves the user's points, not the client's.
        let saved = wavedbg_emulator::debug::session::Session::capture(t.engine());
        assert_eq!(saved.breakpoints.len(), 1);
        assert!(saved.watchpoints.is_empty());
    }
}
