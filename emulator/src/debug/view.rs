//! Text views of the engine's state, shared by every front end: stop descriptions, wave
//! and lane tables, register and lane views with change markers, memory dumps,
//! disassembly with PC and breakpoint markers, breakpoint lists.

use std::fmt::Write;

use super::breakpoint::Owner;
use super::run::{PointRow, WaveRow};
use super::{Blocked, Engine, Reached, StopEvent, StopReason, WatchHit};
use crate::disasm;
use crate::fault::lanes_text;
use crate::isa::{Counter, RegFile};
use crate::machine::Machine;
use crate::memory::Space;

/// `1 wave`, `2 waves`: a count with its noun, singular or plural.
pub fn count(n: u64, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

pub use crate::fault::ranges_text;

/// `breakpoint 1`, `breakpoints 1 and 2`, `breakpoints 1, 2 and 3`: numbered things as
/// gdb lists them in a sentence.
pub fn numbered_list(noun: &str, ids: &[u32]) -> String {
    let mut text = String::new();
    for (k, id) in ids.iter().enumerate() {
        let sep = match k {
            0 => "",
            k if k + 1 == ids.len() => " and ",
            _ => ", ",
        };
        text.push_str(&format!("{sep}{id}"));
    }
    format!("{noun}{} {text}", if ids.len() == 1 { "" } else { "s" })
}

/// The label a code address is in (the nearest at or before it) and the offset from it.
pub fn label_at(m: &Machine, pc: u64) -> Option<(&str, u64)> {
    m.program()
        .labels
        .iter()
        .filter(|(_, a)| **a <= pc)
        .max_by_key(|(n, a)| (**a, std::cmp::Reverse((*n).clone())))
        .map(|(n, a)| (n.as_str(), pc - a))
}

/// A code address as every command shows one: `0x0010`, four hex digits at least.
pub fn addr_text(pc: u64) -> String {
    format!("{pc:#06x}")
}

/// The PC a wave is shown at: its PC, but for a wave that has exited the `end` it exited
/// at (its PC register has moved on past it, to the next label's code or past the end of
/// the code, which is where it is not).
pub fn shown_pc(m: &Machine, w: &crate::wave::Wave) -> u64 {
    let end = w.pc.wrapping_sub(4);
    let at_end = m
        .instr_at(end)
        .is_some_and(|d| d.op == crate::exec::Op::End);
    if w.state == crate::wave::WaveState::Exited && w.pc >= 4 && at_end {
        end
    } else {
        w.pc
    }
}

/// `0x0010 <loop+4>`.
pub fn pc_text(m: &Machine, pc: u64) -> String {
    match label_at(m, pc) {
        Some((name, 0)) => format!("{} <{name}>", addr_text(pc)),
        Some((name, off)) => format!("{} <{name}+{off}>", addr_text(pc)),
        None => addr_text(pc),
    }
}

/// The instruction at `pc` as text, with label names for branch targets.
pub fn instr_text(m: &Machine, pc: u64) -> String {
    match m.instr_at(pc) {
        Some(d) => {
            let mut s = String::new();
            let labels = &m.program().labels;
            let _ = d.instr.write(&mut s, pc, &|a| {
                labels
                    .iter()
                    .find(|(_, x)| **x == a)
                    .map(|(n, _)| n.clone())
            });
            s
        }
        None => match m.program().code.get((pc / 4) as usize) {
            Some(w) => format!(".word {w:#010x}  (not an instruction)"),
            None => "(outside the code)".to_string(),
        },
    }
}

/// `x/Ni ADDR`: `count` instructions from the one at `addr` (or the one `addr` is
/// inside), as gdb's `x/i` lists them (`=>` marks the selected wave's PC; past the code,
/// gdb's `Cannot access memory` ends the list). Also the address after the last one
/// listed, where `x` repeated with Enter goes on.
pub fn instructions_from(e: &Engine, addr: u64, count: u64) -> (String, u64) {
    let m = e.machine();
    let pc = m.waves.get(e.selected_wave).map(|w| w.pc);
    let code = m.code();
    let end = code.len() as u64 * 4;
    let word = |a: u64| usize::try_from(a / 4).ok().and_then(|i| code.get(i));
    let mut a = addr - addr % 4;
    if matches!(word(a), Some(crate::code::CodeWord::Inside)) {
        a -= 4;
    }
    let mut s = String::new();
    for _ in 0..count {
        if a >= end {
            let _ = writeln!(
                s,
                "   {}:\tCannot access memory at address {a:#x}",
                addr_text(a)
            );
            break;
        }
        let mark = if Some(a) == pc { "=> " } else { "   " };
        let _ = writeln!(s, "{mark}{}:\t{}", pc_text(m, a), instr_text(m, a));
        a += match word(a) {
            Some(crate::code::CodeWord::Instr(d)) => u64::from(d.len),
            _ => 4,
        };
    }
    (s, a)
}

fn bytes_hex(b: &[u8]) -> String {
    if b.len() <= 8 && !b.is_empty() {
        let mut v = [0u8; 8];
        v[..b.len()].copy_from_slice(b);
        format!("{:#0w$x}", u64::from_le_bytes(v), w = 2 + 2 * b.len())
    } else {
        b.iter()
            .map(|x| format!("{x:02x}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn watch_target(space: crate::memory::Space, addr: u64, len: u64) -> String {
    format!(
        "{}:{addr:#x} ({len} byte{})",
        space.name(),
        if len == 1 { "" } else { "s" }
    )
}

fn describe_hit(e: &Engine, wave_id: Option<u32>, h: &WatchHit) -> String {
    let m = e.machine();
    let kind = h.kind.name();
    let verb = match h.access {
        crate::exec::AccessKind::Read => "read",
        crate::exec::AccessKind::Write => "written",
        crate::exec::AccessKind::ReadWrite => "read and written (atomic)",
    };
    // A client's point is named as the client knows it, not by the engine's number.
    let name = match e.point_owner(h.id) {
        Some(Owner::Client(label)) => label.clone(),
        _ => format!("{kind} {}: {}", h.id, watch_target(h.space, h.addr, h.len)),
    };
    let mut s = format!(
        "{name}\n  {verb} by wave {} lane{} {} at {}: {}\n",
        wave_id.map_or("?".into(), |w| w.to_string()),
        if h.lanes.count_ones() == 1 { "" } else { "s" },
        lanes_text(h.lanes),
        pc_text(m, h.pc),
        instr_text(m, h.pc)
    );
    if h.len <= 16 {
        if h.access == crate::exec::AccessKind::Read {
            let _ = write!(s, "  Value = {}", bytes_hex(&h.new));
        } else {
            let _ = write!(
                s,
                "  Old value = {}\n  New value = {}",
                bytes_hex(&h.old),
                bytes_hex(&h.new)
            );
        }
        return s;
    }
    // A large range: show the 16-byte rows that changed (or, for reads, the first row).
    let rows: Vec<usize> = (0..h.new.len().div_ceil(16))
        .filter(|r| {
            h.old[r * 16..(r * 16 + 16).min(h.old.len())]
                != h.new[r * 16..(r * 16 + 16).min(h.new.len())]
        })
        .collect();
    if rows.is_empty() {
        let _ = write!(s, "  Value unchanged ({})", count(h.len, "byte"));
    }
    for (i, r) in rows.iter().enumerate() {
        if i == 4 {
            let _ = write!(s, "\n  ... {} more changed rows", rows.len() - 4);
            break;
        }
        let (a, b) = (r * 16, (r * 16 + 16).min(h.new.len()));
        let _ = write!(
            s,
            "{}  {}:{:#x}: Old {} New {}",
            if i == 0 { "" } else { "\n" },
            h.space.name(),
            h.addr + a as u64,
            bytes_hex(&h.old[a..b]),
            bytes_hex(&h.new[a..b])
        );
    }
    s
}

/// Describes a stop the way gdb would, ending with the source line of the instruction the
/// wave executes next (of the faulting instruction, of the barrier of a deadlock) when the
/// engine has the kernel's source.
pub fn describe_stop(e: &Engine, stop: &StopEvent) -> String {
    let text = describe_stop_reason(e, stop);
    // Every stop names the launch's instruction count, which `goto` takes (the end of the
    // launch says it already).
    if stop.reason == StopReason::Finished {
        return text;
    }
    let count = format!(" [count {}]", stop.instructions);
    let mut text = match text.split_once('\n') {
        Some((first, rest)) => format!("{first}{count}\n{rest}"),
        None => text + &count,
    };
    let line_pc = match &stop.reason {
        StopReason::Deadlock(d) => d.waiting.first().map(|(_, pc)| *pc),
        StopReason::Fault(f) => Some(f.pc),
        StopReason::Finished | StopReason::Terminated(_) | StopReason::Reached(Reached::Exit) => {
            None
        }
        StopReason::Blocked(b) if *b != Blocked::HistoryStart => None,
        StopReason::Deadlocked(_) => None,
        _ => stop.pc,
    };
    if let Some(line) = line_pc.and_then(|pc| e.source_line_at(pc)) {
        text.push('\n');
        text.push_str(&line);
    }
    text
}

/// Why a forward resume cannot run anything because of deadlock `d` (a
/// [`StopReason::Deadlocked`] stop), and what still works: `wave` names the wave run alone
/// when other workgroups could still run.
pub fn deadlocked_text(m: &Machine, d: &crate::machine::Deadlock, wave: &str) -> String {
    if m.launch_deadlock().is_some() || wave.is_empty() {
        format!(
            "Cannot run: the launch is deadlocked: {}\n  nothing can run: reverse-stepi and reverse-continue go back, run starts again",
            deadlock_text(m, d)
        )
    } else {
        format!(
            "Cannot run {wave}: its barrier can never complete: {}\n  continue runs the other workgroups",
            deadlock_text(m, d)
        )
    }
}

/// A deadlock as the debugger and `wavedbg run` report it: each waiting wave with the PC
/// `info waves` shows for it (past its barrier) and the barrier it waits at.
pub fn deadlock_text(m: &Machine, d: &crate::machine::Deadlock) -> String {
    let waiting: Vec<String> = d
        .waiting
        .iter()
        .map(|(id, barrier)| {
            // A wave waiting at a barrier is past it (`deadlock_in` keeps the barrier).
            // Its PC goes without a label: the next instruction's label (`<leave>`)
            // would read as where the wave is stuck.
            let pc = barrier.wrapping_add(4);
            format!(
                "wave {id} (pc {}) waits at the barrier at {}",
                addr_text(pc),
                pc_text(m, *barrier)
            )
        })
        .collect();
    let missing: Vec<String> = d
        .missing
        .iter()
        .map(|(w, st)| format!("wave {w} ({})", st.name()))
        .collect();
    format!(
        "deadlock in workgroup {}: {}; {}",
        d.workgroup,
        waiting.join(", "),
        if missing.is_empty() {
            "no other wave can run to it".to_string()
        } else {
            format!("{} will never arrive", missing.join(", "))
        }
    )
}

/// `advance barrier`'s stop: the wave has executed its barrier and stopped after it,
/// waiting for its workgroup or, the last to arrive, released.
fn barrier_text(m: &Machine, wave: &str, stop: &StopEvent) -> String {
    let Some(pc) = stop.pc else {
        return format!("{wave} reached its barrier");
    };
    let barrier = pc.checked_sub(4).filter(|b| {
        m.instr_at(*b)
            .is_some_and(|d| d.op == crate::exec::Op::Barrier)
    });
    let waits = stop
        .wave
        .and_then(|i| m.waves.get(i))
        .is_some_and(|w| w.state == crate::wave::WaveState::AtBarrier);
    let at = barrier.map_or("its barrier".to_string(), |b| {
        format!("the barrier at {}", pc_text(m, b))
    });
    let how = if waits {
        "waiting for the other waves of its workgroup"
    } else {
        "the last of its workgroup to arrive, it released the barrier"
    };
    format!(
        "{wave} reached {at} and stopped after it, {how}\n  next: {}: {}",
        pc_text(m, pc),
        instr_text(m, pc)
    )
}

fn describe_stop_reason(e: &Engine, stop: &StopEvent) -> String {
    let m = e.machine();
    let at = |pc: Option<u64>| {
        pc.map(|pc| format!("{}: {}", pc_text(m, pc), instr_text(m, pc)))
            .unwrap_or_default()
    };
    let wave = stop.wave_id.map_or(String::new(), |id| {
        let wg = stop
            .wave
            .and_then(|i| m.waves.get(i))
            .map_or(0, |w| w.workgroup);
        format!("wave {id} (workgroup {wg})")
    });
    match &stop.reason {
        StopReason::Breakpoint { id, lanes } => {
            // A client's point is named as the client knows it, not by the engine's number.
            let name = match e.point_owner(*id) {
                Some(Owner::Client(label)) => label.clone(),
                _ if e.was_temporary(*id) => format!("Temporary breakpoint {id}"),
                _ => format!("Breakpoint {id}"),
            };
            // A wave stops at a breakpoint whatever its EXEC: with none active, it says so.
            let lanes = match lanes.count_ones() {
                0 => "no active lanes (EXEC is 0)".to_string(),
                1 => format!("lane {}", lanes_text(*lanes)),
                _ => format!("lanes {}", lanes_text(*lanes)),
            };
            format!("{name}, {wave}, {lanes}\n  {}", at(stop.pc))
        }
        StopReason::Watchpoint(hits) => {
            let mut s: Vec<String> = hits
                .iter()
                .map(|h| describe_hit(e, stop.wave_id, h))
                .collect();
            s.push(format!("  next: {}", at(stop.pc)));
            s.join("\n")
        }
        StopReason::Step => format!("{wave}\n  {}", at(stop.pc)),
        StopReason::Reached(Reached::Exit) => format!("{wave} exited"),
        // As gdb's "Run back to call of #0 ...": a wave's one frame began at its entry.
        StopReason::Reached(Reached::Entry) => format!(
            "Run back to the start of {wave}: right before its first instruction\n  {}",
            at(stop.pc)
        ),
        StopReason::Reached(Reached::Barrier) => barrier_text(m, &wave, stop),
        StopReason::Reached(Reached::Address(a)) => {
            format!("{wave} reached {}\n  {}", pc_text(m, *a), at(stop.pc))
        }
        StopReason::Reached(Reached::Finding {
            number,
            side,
            lanes,
        }) => {
            format!(
                "{}, {wave}, {}\n  {}",
                visit_text(e, *number, *side),
                match lanes.count_ones() {
                    0 => "no lanes".to_string(),
                    1 => format!("lane {}", lanes_text(*lanes)),
                    _ => format!("lanes {}", lanes_text(*lanes)),
                },
                at(stop.pc)
            )
        }
        StopReason::Reached(what) => format!("{wave} reached {what}\n  {}", at(stop.pc)),
        StopReason::BreakInstruction => {
            format!("Break instruction (brk), {wave}\n  {}", at(stop.pc))
        }
        StopReason::Fault(f) => {
            let (sig, _) = f.signal();
            format!("Program received signal {sig}: {f}")
        }
        StopReason::Deadlock(d) => format!("Deadlock: {}", deadlock_text(m, d)),
        StopReason::Deadlocked(d) => deadlocked_text(m, d, &wave),
        StopReason::Finished => format!(
            "All waves exited ({}, {}).",
            count(m.stats.wave_instructions, "wave-instruction"),
            count(m.stats.lane_ops, "lane-op")
        ),
        StopReason::Interrupted => format!("Interrupted, {wave}\n  {}", at(stop.pc)),
        // As gdb says it; the machine is at the earliest point it could reach.
        StopReason::Blocked(Blocked::HistoryStart) => {
            format!(
                "No more reverse-execution history.\n{wave}\n  {}",
                at(stop.pc)
            )
        }
        StopReason::Blocked(why) if wave.is_empty() => format!("Cannot run: {why}"),
        StopReason::Blocked(why) => format!("Cannot run {wave}: {why}"),
        StopReason::Terminated(why) => format!("The launch is over: {why}."),
        StopReason::Finding(found) => {
            let mut s: Vec<String> = found
                .iter()
                .map(|f| format!("Sanitizer {}", f.describe(m, e.source())))
                .collect();
            s.extend(stop.watch.iter().map(|h| describe_hit(e, stop.wave_id, h)));
            s.push(format!("  next: {}", at(stop.pc)));
            s.join("\n")
        }
        StopReason::ConditionError { id, message } => format!(
            "Error in condition of {id}: {message}; stopped, {wave}\n  {}",
            at(stop.pc)
        ),
    }
}

/// What a `finding N` stop is at: `Finding 2 (data race), before side`; at the second
/// side of a read of inactive lanes, the last write of the register read.
fn visit_text(e: &Engine, number: u64, side: crate::debug::FindingSide) -> String {
    let f = usize::try_from(number)
        .ok()
        .and_then(|n| e.recorded_findings().get(n.checked_sub(1)?));
    let Some(f) = f else {
        return format!("Finding {number}, {} side", side.word());
    };
    let role = side.role(f);
    let written = match (side, f.kind, f.reg) {
        (
            crate::debug::FindingSide::Second,
            crate::check::FindingKind::InactiveLaneRead,
            Some((_, r)),
        ) => {
            format!(": the last write of v{r} in the lanes read")
        }
        _ => String::new(),
    };
    format!("Finding {number} ({}), {role} side{written}", f.kind.name())
}

/// `info waves` from its rows: the selected wave marked `*`, then id, workgroup, index in
/// it, state, PC and active lanes.
pub fn waves_table(m: &Machine, rows: &[WaveRow]) -> String {
    let mut s = String::from("  Wave  WG  Idx  State        PC                       Active\n");
    for w in rows {
        let _ = writeln!(
            s,
            "{} {:>4} {:>3} {:>4}  {:<11}  {:<24} {:>2}/32",
            if w.selected { "*" } else { " " },
            w.id,
            w.workgroup,
            w.index,
            w.state.name(),
            pc_text(m, w.pc),
            w.exec.count_ones()
        );
    }
    s
}

/// `info lanes [/F] [REG...]`, as cuda-gdb's `info cuda lanes`: the EXEC line, then a row
/// per lane of wave `wave` (an index into the machine's waves): `*` the selected lane, its
/// state (active or inactive by EXEC, or the wave's own state once it has exited or
/// faulted), `B` or `W` when it is one of the lanes of the last stop at a breakpoint or
/// watchpoint of this wave, and a column per register in `columns` (hex unless a format
/// is given).
pub fn lanes_table(e: &Engine, wave: usize, columns: &super::command::LaneColumns) -> String {
    use super::command::LaneReg;
    let m = e.machine();
    let Some(w) = m.waves.get(wave) else {
        return "no wave selected\n".into();
    };
    let exec = w.exec;
    let mut s = format!(
        "wave {}: EXEC = {exec:#010x} ({} active)\n",
        w.id,
        exec.count_ones()
    );
    // The lanes of the last stop, if it was this wave's at a breakpoint or watchpoint.
    let (mark, hit) = match e.last_stop().filter(|st| st.wave_id == Some(w.id)) {
        Some(st) => match &st.reason {
            StopReason::Breakpoint { id, lanes } => {
                let _ = writeln!(s, "B: the lanes that stopped at breakpoint {id}");
                ('B', *lanes)
            }
            StopReason::Watchpoint(hits) => {
                let ids: Vec<String> = hits.iter().map(|h| h.id.to_string()).collect();
                let _ = writeln!(
                    s,
                    "W: the lanes that triggered watchpoint {}",
                    ids.join(", ")
                );
                ('W', hits.iter().fold(0, |a, h| a | h.lanes))
            }
            _ => (' ', 0),
        },
        None => (' ', 0),
    };
    let fmt = columns.format.unwrap_or('x');
    let cells: Vec<Vec<String>> = (0..crate::wave::LANES)
        .map(|l| {
            columns
                .regs
                .iter()
                .map(|r| match r {
                    LaneReg::Vector(n) => format_value(w.v[*n as usize][l] as u64, fmt, 4),
                    LaneReg::Uniform(n) => format_value(w.u[*n as usize] as u64, fmt, 4),
                    LaneReg::Exec => (exec >> l & 1).to_string(),
                })
                .collect()
        })
        .collect();
    let heads: Vec<String> = columns.regs.iter().map(|r| r.to_string()).collect();
    let widths: Vec<usize> = heads
        .iter()
        .enumerate()
        .map(|(c, h)| {
            cells
                .iter()
                .map(|row| row[c].len())
                .chain([h.len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut head = String::from("  Lane  State     Hit");
    for (h, width) in heads.iter().zip(&widths) {
        let _ = write!(head, "  {h:>width$}");
    }
    s.push_str(head.trim_end());
    s.push('\n');
    for (l, row) in cells.iter().enumerate() {
        let state = if w.alive() {
            if exec >> l & 1 == 1 {
                "active"
            } else {
                "inactive"
            }
        } else {
            w.state.name()
        };
        let mut line = format!(
            "{}{l:>5}  {state:<8}  {:<3}",
            if l == e.selected_lane as usize {
                "*"
            } else {
                " "
            },
            if hit >> l & 1 == 1 { mark } else { ' ' }
        );
        for (v, width) in row.iter().zip(&widths) {
            let _ = write!(line, "  {v:>width$}");
        }
        s.push_str(line.trim_end());
        s.push('\n');
    }
    s
}

/// The lanes of v register `reg` whose value differs from the previous stop.
pub fn changed_lanes(e: &Engine, wave: usize, reg: usize) -> u32 {
    let (now, before) = (&e.machine().waves, &e.previous().waves);
    match (now.get(wave), before.get(wave)) {
        (Some(a), Some(b)) if a.id == b.id => (0..32)
            .filter(|&l| a.v[reg][l] != b.v[reg][l])
            .fold(0, |m, l| m | 1 << l),
        _ => 0,
    }
}

/// A v register across all 32 lanes: inactive lanes in parentheses, changed lanes with `*`;
/// 8 lanes a row, or as many as fit `width` columns (0: unlimited, 8 a row).
pub fn lane_view(e: &Engine, wave: usize, reg: usize, fmt: char, width: usize) -> String {
    let m = e.machine();
    let Some(w) = m.waves.get(wave) else {
        return String::new();
    };
    let changed = changed_lanes(e, wave, reg);
    let values: Vec<String> = (0..32)
        .map(|l| format_value(w.v[reg][l] as u64, fmt, 4))
        .collect();
    let head = format!("v{reg} (wave {}, EXEC {:#010x}):", w.id, w.exec);
    let mut s = super::width::wrap_lines(&head, width) + "\n";
    s.push_str(&lane_rows(&values, width, true, |l| {
        (w.exec >> l & 1 == 1, changed >> l & 1 == 1)
    }));
    s
}

/// Rows of 32 lane values, each row headed by its first lane (`  [ 8]`): every cell as
/// wide (an active lane `  VALUE M`, an inactive one ` (VALUE)M`, the value right-aligned
/// in at least 11 columns, `M` the change mark `*` or a space, absent without `marks`), so
/// columns line up; 8 cells a row, or as many as fit `width` columns. `lane(l)` says
/// whether lane `l` is active and changed.
fn lane_rows(
    values: &[String],
    width: usize,
    marks: bool,
    lane: impl Fn(usize) -> (bool, bool),
) -> String {
    let value_w = values
        .iter()
        .map(|v| v.chars().count())
        .max()
        .unwrap_or(0)
        .max(11);
    let cell = value_w + 3 + usize::from(marks);
    let per = super::width::per_row(width, 6, cell, 8, 32);
    let mut s = String::new();
    for (row, chunk) in values.chunks(per).enumerate() {
        let _ = write!(s, "  [{:>2}]", row * per);
        for (i, v) in chunk.iter().enumerate() {
            let (active, changed) = lane(row * per + i);
            let mark = match (marks, changed) {
                (false, _) => "",
                (true, true) => "*",
                (true, false) => " ",
            };
            if active {
                let _ = write!(s, "  {v:>value_w$} {mark}");
            } else {
                let _ = write!(s, " ({v:>value_w$}){mark}");
            }
        }
        s.truncate(s.trim_end().len());
        s.push('\n');
    }
    s
}

/// A scalar as `print` writes it (`display`, the TUI's Watch pane): registers and memory
/// at 32 bits unless the value is wider; with no format, `exec` as its mask and lanes,
/// `pc` and labels as code addresses, a buffer's name as its address and size, negative
/// values signed, the rest unsigned.
pub fn scalar_text(m: &Machine, e: &super::expr::Expr, v: i64, format: Option<char>) -> String {
    use super::expr::{self, Expr};
    let size = if (v as u64) >> 32 == 0 || (v as u64) >> 31 == 0x1_ffff_ffff {
        4
    } else {
        8
    };
    match (format, e) {
        // `display/i ADDR`: the instruction there (the TUI's Watch pane).
        (Some('i'), _) => format!("{}: {}", pc_text(m, v as u64), instr_text(m, v as u64)),
        (None, Expr::Exec) => format!(
            "{:#010x} ({} active: {})",
            v as u32,
            (v as u32).count_ones(),
            lanes_text(v as u32)
        ),
        (None, Expr::Pc) => pc_text(m, v as u64),
        (None, Expr::Label(name)) => match expr::symbol(m, name) {
            Some(expr::Symbol::Buffer { size, .. }) => {
                format!("{:#x} <buffer {name}, {}>", v as u64, count(size, "byte"))
            }
            _ => pc_text(m, v as u64),
        },
        (None, _) if v < 0 => v.to_string(),
        (f, _) => format_value(v as u64, f.unwrap_or('u'), size),
    }
}

/// Formats a value: x hex, d signed, u unsigned, t binary, f float, c char.
pub fn format_value(v: u64, fmt: char, size: usize) -> String {
    let bits = size * 8;
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let v = v & mask;
    match fmt {
        'x' => format!("{v:#0w$x}", w = 2 + size * 2),
        'd' => {
            let shift = 64 - bits as u32;
            (((v << shift) as i64) >> shift).to_string()
        }
        't' => format!("{v:0w$b}", w = bits),
        'o' => format!("{v:#o}"),
        'c' => {
            let c = (v as u8) as char;
            if c.is_ascii_graphic() || c == ' ' {
                format!("'{c}'")
            } else {
                format!("'\\x{:02x}'", v as u8)
            }
        }
        'f' if size == 4 => {
            let x = f32::from_bits(v as u32);
            float_text(x as f64, format!("{x}"), 9)
        }
        'f' if size == 8 => {
            let x = f64::from_bits(v);
            float_text(x, format!("{x}"), 17)
        }
        _ => v.to_string(),
    }
}

/// A float like C's `%g`: plain for moderate magnitudes, exponent form otherwise, with up to
/// `digits` significant digits.
fn float_text(x: f64, plain: String, digits: usize) -> String {
    let moderate = x == 0.0 || !x.is_finite() || (1e-4..1e16).contains(&x.abs());
    if moderate && plain.len() <= digits + 3 {
        return plain;
    }
    let e = format!("{x:.*e}", digits.saturating_sub(1));
    // Trim trailing zeros of the mantissa: 1.50000000e3 -> 1.5e3.
    match e.split_once('e') {
        Some((m, exp)) if m.contains('.') => {
            format!("{}e{exp}", m.trim_end_matches('0').trim_end_matches('.'))
        }
        _ => e,
    }
}

/// `info registers`: PC, EXEC, counters, outstanding registers and u registers (changed ones
/// marked `*`), 8 u registers a row or as many as fit `width` columns (0: unlimited), the
/// other lines wrapped at spaces to fit it.
pub fn registers(e: &Engine, wave: usize, width: usize) -> String {
    let m = e.machine();
    let Some(w) = m.waves.get(wave) else {
        return "no wave\n".into();
    };
    let prev = e.previous().waves.get(wave).filter(|p| p.id == w.id);
    let mark = |changed: bool| if changed { "*" } else { " " };
    let mut s = format!(
        "wave {} (workgroup {}, index {}), {}\n  pc   {}{}\n  exec {:#010x}{} {:032b}\n",
        w.id,
        w.workgroup,
        w.index,
        w.state.name(),
        pc_text(m, w.pc),
        mark(prev.is_some_and(|p| p.pc != w.pc)),
        w.exec,
        mark(prev.is_some_and(|p| p.exec != w.exec)),
        w.exec.reverse_bits()
    );
    let counters: Vec<String> = Counter::ALL
        .iter()
        .map(|c| format!("{}={}", c.name(), w.counter(*c)))
        .collect();
    let _ = writeln!(s, "  counters {}", counters.join(" "));
    let mut pending = Vec::new();
    for c in Counter::ALL {
        for o in &w.outstanding[c.index()] {
            if let Some(r) = o.regs {
                let p = if r.file == RegFile::Vector { 'v' } else { 'u' };
                let regs = if r.count == 1 {
                    format!("{p}{}", r.first)
                } else {
                    format!("{p}[{}:{}]", r.first, r.first + r.count - 1)
                };
                pending.push(format!("{regs} ({} from {})", c.name(), addr_text(o.pc)));
            }
        }
    }
    if !pending.is_empty() {
        let _ = writeln!(s, "  outstanding {}", pending.join(", "));
    }
    // Each u register is 16 columns (` u12=0x00000000*`) after a 1-column margin.
    let per = super::width::per_row(width, 1, 16, 8, w.u.len());
    let regs: Vec<usize> = (0..w.u.len()).collect();
    for row in regs.chunks(per) {
        let _ = write!(s, " ");
        for &r in row {
            let changed = prev.is_some_and(|p| p.u[r] != w.u[r]);
            let _ = write!(s, " u{r:<2}={:#010x}{}", w.u[r], mark(changed));
        }
        s.truncate(s.trim_end().len());
        s.push('\n');
    }
    super::width::wrap_lines(&s, width)
}

/// Disassembly of `count` instructions around `center` (`=>` marks the PC, `B` breakpoints).
pub fn disassembly(e: &Engine, center: u64, before: usize, after: usize) -> String {
    let m = e.machine();
    let lines = disasm::decode_all(&m.program().code);
    let labels = disasm::labels_for(&m.program().labels, &lines);
    let pc = m.waves.get(e.selected_wave).map(|w| shown_pc(m, w));
    let idx = lines
        .iter()
        .position(|l| l.addr >= center)
        .unwrap_or(lines.len().saturating_sub(1));
    let lo = idx.saturating_sub(before);
    let hi = (idx + after + 1).min(lines.len());
    let mut s = String::new();
    for line in &lines[lo..hi] {
        if let Some(names) = labels.get(&line.addr) {
            for n in names {
                let _ = writeln!(s, "{n}:");
            }
        }
        let bp = e
            .breakpoints()
            .iter()
            .any(|b| b.is_at(line.addr) && b.enabled);
        let text = match &line.instr {
            Some(i) => disasm::instr_text(i, line.addr, &labels),
            None => format!(".word {:#010x}", line.words[0]),
        };
        let _ = writeln!(
            s,
            "{}{} {}  {text}",
            if Some(line.addr) == pc { "=>" } else { "  " },
            if bp { "B" } else { " " },
            addr_text(line.addr)
        );
    }
    s
}

/// ` at FILE:LINE` of the higher-level line of the instruction at `addr`, where the
/// kernel has a line table there (empty otherwise), as gdb's breakpoint table says it.
fn high_level_at(m: &Machine, addr: u64) -> String {
    let p = m.program();
    p.source_info
        .row_at(addr, p.code_bytes())
        .filter(|r| r.line != 0)
        .and_then(|r| Some((p.source_info.file(r.file)?, r.line)))
        .map(|(f, line)| format!(" at {}:{line}", f.path))
        .unwrap_or_default()
}

/// `info breakpoints` (`watch_only`: `info watchpoints`) from the rows of
/// [`Engine::point_rows`], numbered as gdb lists them.
pub fn points_table(m: &Machine, rows: &[PointRow], watch_only: bool) -> String {
    let rows: Vec<&PointRow> = rows
        .iter()
        .filter(|r| !watch_only || matches!(r, PointRow::Watch(_)))
        .collect();
    if rows.is_empty() {
        return if watch_only {
            "No watchpoints.\n".into()
        } else {
            "No breakpoints or watchpoints.\n".into()
        };
    }
    let mut s = String::from("Num  Type            Disp  Enb  Address          What\n");
    for row in rows {
        match row {
            PointRow::Break(b) => {
                let (address, what) = match b.addrs.as_slice() {
                    [one] => (addr_text(*one), pc_text(m, *one) + &high_level_at(m, *one)),
                    _ => ("<MULTIPLE>".to_string(), String::new()),
                };
                let row = format!(
                    "{:<4} breakpoint      {:<5} {:<4} {:<16} {what}",
                    b.id,
                    if b.temporary { "del" } else { "keep" },
                    if b.enabled { "y" } else { "n" },
                    address,
                );
                let _ = writeln!(s, "{}", row.trim_end());
                let mut extra = Vec::new();
                if let Some(c) = &b.condition {
                    extra.push(format!("stop only if {}", c.text));
                }
                if let Some(w) = b.filters.wave {
                    extra.push(format!("wave {w} only"));
                }
                if let Some(g) = b.filters.workgroup {
                    extra.push(format!("workgroup {g} only"));
                }
                if let Some(l) = b.filters.lane {
                    extra.push(format!("lane {l} only"));
                }
                if b.hits > 0 {
                    extra.push(format!("breakpoint already hit {}", count(b.hits, "time")));
                }
                if b.ignore > 0 {
                    extra.push(format!(
                        "will ignore next {}",
                        count(b.ignore as u64, "crossing")
                    ));
                }
                for x in extra {
                    let _ = writeln!(s, "        {x}");
                }
                // As gdb: a breakpoint of several locations lists each as `N.1`, `N.2`.
                if b.addrs.len() > 1 {
                    for (k, &a) in b.addrs.iter().enumerate() {
                        let _ = writeln!(
                            s,
                            "{:<26} {:<4} {:<16} {}{}",
                            format!("{}.{}", b.id, k + 1),
                            if b.enabled { "y" } else { "n" },
                            addr_text(a),
                            pc_text(m, a),
                            high_level_at(m, a)
                        );
                    }
                }
            }
            PointRow::Watch(w) => {
                let _ = writeln!(
                    s,
                    "{:<4} {:<15} keep  {:<4} {:<16} {}{}",
                    w.id,
                    w.kind.table_name(),
                    if w.enabled { "y" } else { "n" },
                    "",
                    watch_target(w.scope.space(), w.addr, w.len),
                    w.scope.instance_text()
                );
                if let Some(c) = &w.condition {
                    let _ = writeln!(s, "        stop only if {}", c.text);
                }
                if w.hits > 0 {
                    let _ = writeln!(
                        s,
                        "        watchpoint already hit {}",
                        count(w.hits, "time")
                    );
                }
            }
        }
    }
    s
}

/// `print` of a per-lane expression: four rows of eight lanes (or as many a row as fit
/// `width` columns; 0 is unlimited), inactive lanes in parentheses, each value in format
/// `fmt`.
pub fn lane_values(text: &str, values: &[i64], exec: u32, fmt: char, width: usize) -> String {
    let head = format!("{text} (by lane; inactive lanes in parentheses):");
    let mut s = super::width::wrap_lines(&head, width) + "\n";
    let values: Vec<String> = values
        .iter()
        .map(|v| format_value(*v as u64, fmt, 8))
        .collect();
    s.push_str(&lane_rows(&values, width, false, |l| {
        (exec >> l & 1 == 1, false)
    }));
    s
}

/// 32 lane values already formatted, under `head`, inactive lanes in parentheses (as
/// [`lane_values`] lays them out): `print` of a per-lane source variable or of a float.
pub fn lane_texts(head: &str, values: &[String], exec: u32, width: usize) -> String {
    let mut s = super::width::wrap_lines(head, width) + "\n";
    s.push_str(&lane_rows(values, width, false, |l| {
        (exec >> l & 1 == 1, false)
    }));
    s
}

/// `x`: `bytes` read from `addr` in `space`, in units of `size` bytes shown in format
/// `fmt`, 16 bytes a row, each row headed by its address.
pub fn memory_rows(space: Space, addr: u64, bytes: &[u8], fmt: char, size: usize) -> String {
    let per_row = (16 / size).max(1);
    let mut s = String::new();
    for (row, chunk) in bytes.chunks(per_row * size).enumerate() {
        let _ = write!(
            s,
            "{}:{:#x}:",
            space.name(),
            addr + (row * per_row * size) as u64
        );
        for unit in chunk.chunks(size) {
            let mut b = [0u8; 8];
            b[..unit.len()].copy_from_slice(unit);
            let _ = write!(s, " {}", format_value(u64::from_le_bytes(b), fmt, size));
        }
        s.push('\n');
    }
    s
}

/// `info buffers`: each global buffer's name, base address, size, and the `.arg`
/// registers that hold its address or descriptor.
pub fn buffers_table(e: &Engine) -> String {
    let m = e.machine();
    let p = m.program();
    if p.buffers.is_empty() {
        return "No buffers.\n".into();
    }
    let rows: Vec<[String; 4]> = p
        .buffers
        .iter()
        .map(|b| {
            let held: Vec<String> = p
                .args
                .iter()
                .filter_map(|a| {
                    let (name, what) = match &a.value {
                        crate::program::ArgValue::Address(n) => (n, "address"),
                        crate::program::ArgValue::Descriptor(n) => (n, "descriptor"),
                        crate::program::ArgValue::Value(_) => return None,
                    };
                    (*name == b.name)
                        .then(|| format!("u[{}:{}] ({what})", a.reg, a.reg + a.value.regs() - 1))
                })
                .collect();
            [
                b.name.clone(),
                m.buffer_base(&b.name)
                    .map_or("-".into(), |a| format!("{a:#x}")),
                b.size.to_string(),
                if held.is_empty() {
                    "-".into()
                } else {
                    held.join(", ")
                },
            ]
        })
        .collect();
    table(
        &["Name", "Address", "Bytes", "Argument"],
        &rows,
        &[false, false, true, false],
    )
}

/// `info labels`: each label's name, address and the source line of its instruction,
/// by address.
pub fn labels_table(e: &Engine) -> String {
    let p = e.machine().program();
    if p.labels.is_empty() {
        return "No labels.\n".into();
    }
    let mut labels: Vec<(&String, &u64)> = p.labels.iter().collect();
    labels.sort_by_key(|(n, a)| (**a, (*n).clone()));
    let rows: Vec<[String; 3]> = labels
        .into_iter()
        .map(|(n, a)| {
            [
                n.clone(),
                addr_text(*a),
                p.line_at(*a).map_or("-".into(), |l| l.to_string()),
            ]
        })
        .collect();
    table(&["Name", "Address", "Line"], &rows, &[false, false, true])
}

/// A text table: columns as wide as their widest cell, numbers (`right`) aligned right.
fn table<const N: usize>(heads: &[&str; N], rows: &[[String; N]], right: &[bool; N]) -> String {
    let widths: Vec<usize> = (0..N)
        .map(|c| {
            rows.iter()
                .map(|r| r[c].chars().count())
                .chain([heads[c].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &[&str]| {
        let mut s = String::new();
        for (c, cell) in cells.iter().enumerate() {
            let w = widths[c];
            if c > 0 {
                s.push_str("  ");
            }
            if right[c] {
                let _ = write!(s, "{cell:>w$}");
            } else {
                let _ = write!(s, "{cell:<w$}");
            }
        }
        s.truncate(s.trim_end().len());
        s.push('\n');
        s
    };
    let mut s = line(heads);
    for r in rows {
        let cells: Vec<&str> = r.iter().map(String::as_str).collect();
        s.push_str(&line(&cells));
    }
    s
}

/// What changed since the previous stop: registers of every resident wave and memory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// (wave index in [`Machine::waves`], `pc`/`exec`/`uN`/`vN`, changed lanes of a `vN` as a
    /// bit per lane, 0 for the others), in wave then register order.
    pub registers: Vec<(usize, String, u32)>,
    /// (`global`/`shared`/`scratch`, the buffer, workgroup or wave and lane, first changed
    /// byte, one past the last): addresses, or offsets in the window or the lane's scratch.
    pub memory: Vec<(String, String, u64, u64)>,
}

/// Computes what changed since the previous stop.
pub fn changes(e: &Engine) -> Changes {
    let (now, before) = (e.machine(), e.previous());
    let mut c = Changes::default();
    for (i, w) in now.waves.iter().enumerate() {
        let Some(p) = before.waves.get(i).filter(|p| p.id == w.id) else {
            continue;
        };
        if w.pc != p.pc {
            c.registers.push((i, "pc".into(), 0));
        }
        if w.exec != p.exec {
            c.registers.push((i, "exec".into(), 0));
        }
        for r in 0..w.u.len() {
            if w.u[r] != p.u[r] {
                c.registers.push((i, format!("u{r}"), 0));
            }
        }
        for r in 0..w.v.len() {
            let lanes = (0..32)
                .filter(|&l| w.v[r][l] != p.v[r][l])
                .fold(0u32, |m, l| m | 1 << l);
            if lanes != 0 {
                c.registers.push((i, format!("v{r}"), lanes));
            }
        }
        for (a, b) in w.scratch.changed_since(&p.scratch) {
            let size = now.launch().scratch_bytes.max(1) as u64;
            c.memory.push((
                "scratch".into(),
                format!("wave {} lane {}", w.id, a / size),
                a % size,
                (b - 1) % size + 1,
            ));
        }
    }
    for (a, b) in now
        .global
        .allocations()
        .iter()
        .zip(before.global.allocations())
    {
        for (lo, hi) in a.data.changed_since(&b.data) {
            c.memory
                .push(("global".into(), a.name.clone(), a.base + lo, a.base + hi));
        }
    }
    for (s, p) in now.slots.iter().zip(&before.slots) {
        if let (Some(g), true) = (s.workgroup, s.workgroup == p.workgroup) {
            for (lo, hi) in s.shared.changed_since(&p.shared) {
                c.memory
                    .push(("shared".into(), format!("workgroup {g}"), lo, hi));
            }
        }
    }
    // Neighbouring runs (within 16 bytes) read better as one range.
    let mut merged: Vec<(String, String, u64, u64)> = Vec::new();
    for m in c.memory {
        match merged.last_mut() {
            Some(last) if last.0 == m.0 && last.1 == m.1 && m.2 <= last.3 + 16 => {
                last.3 = last.3.max(m.3)
            }
            _ => merged.push(m),
        }
    }
    c.memory = merged;
    c
}

/// `info changes`: [`changes`] as text, one line per register and per byte range.
pub fn changes_text(e: &Engine) -> String {
    let c = changes(e);
    if c.registers.is_empty() && c.memory.is_empty() {
        return "Nothing changed since the previous stop.\n".into();
    }
    let m = e.machine();
    let mut s = String::new();
    for (w, name, lanes) in &c.registers {
        let id = m.waves[*w].id;
        if *lanes != 0 {
            let _ = writeln!(s, "wave {id}: {name} lanes {}", lanes_text(*lanes));
        } else {
            let _ = writeln!(s, "wave {id}: {name}");
        }
    }
    for (space, scope, lo, hi) in &c.memory {
        let _ = writeln!(
            s,
            "{space} {scope}: {lo:#x}..{hi:#x} ({})",
            count(hi - lo, "byte")
        );
    }
    s
}

/// `info history`: the time-travel record.
pub fn history_text(e: &Engine) -> String {
    let now = e.machine().stats.wave_instructions;
    let h = e.history().info(now);
    let mib = |b: usize| b as f64 / (1 << 20) as f64;
    let mut out = if !h.dropped {
        format!(
            "Recorded history: instructions 0 to {} (the launch to the newest point), now at {}.\n",
            h.end, h.now
        )
    } else {
        format!(
            "Recorded history: instructions {} to {} (older history was dropped to keep within set history-size), now at {}.\n",
            h.start, h.end, h.now
        )
    };
    out += &format!(
        "{}; {}, {:.1} MiB of {:.0} MiB (set history-size), one every {} instructions or more.\n",
        if h.entries == 1 {
            "1 record entry".to_string()
        } else {
            format!("{} record entries", h.entries)
        },
        count(h.snapshots as u64, "snapshot"),
        mib(h.bytes),
        mib(h.limit),
        h.spacing
    );
    // The machine copies a replay keeps near the last point it reached (for the next
    // reverse step) are part of the memory above.
    if h.checkpoints > 0 {
        out += &format!(
            "{} near the last replayed point, {:.1} MiB of that (the oldest go first when the bound needs their room).\n",
            count(h.checkpoints as u64, "replay checkpoint"),
            mib(h.checkpoint_bytes)
        );
    }
    if h.now < h.end {
        out += "In the past: stepping or continuing from here replaces the recorded future.\n";
    }
    out
}
